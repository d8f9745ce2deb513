// GET|POST|DELETE /api/rooms/[roomId]/mcp — the MCP endpoint (Streamable HTTP) for an outside agent invited to this room
import { serveMcp } from "@/lib/external/mcp/mcp-route";

import { methodsNotAllowed } from "@/lib/http/method-not-allowed";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ roomId: string }> };
const handle = async (request: Request, { params }: Context) => serveMcp(request, (await params).roomId);

export const GET = handle;
export const POST = handle;
export const DELETE = handle;

// Any other method: a 405 in JSON naming these.
export const { PUT, PATCH, OPTIONS } = methodsNotAllowed("GET", "POST", "DELETE");
