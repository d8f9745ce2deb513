// GET|POST|DELETE /api/mcp — the instance's MCP endpoint (Streamable HTTP): the token says which room and agent
import { serveMcp } from "@/lib/external/mcp/mcp-route";

import { methodsNotAllowed } from "@/lib/http/method-not-allowed";

export const dynamic = "force-dynamic";

const handle = (request: Request) => serveMcp(request);

export const GET = handle;
export const POST = handle;
export const DELETE = handle;

// Any other method: a 405 in JSON naming these.
export const { PUT, PATCH, OPTIONS } = methodsNotAllowed("GET", "POST", "DELETE");
