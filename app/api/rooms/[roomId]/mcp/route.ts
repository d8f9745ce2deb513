// GET|POST|DELETE /api/rooms/[roomId]/mcp — the MCP endpoint (Streamable HTTP) for an outside agent invited to this room
import { serveMcp } from "@/lib/external/mcp/mcp-route";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ roomId: string }> };
const handle = async (request: Request, { params }: Context) => serveMcp(request, (await params).roomId);

export { handle as GET, handle as POST, handle as DELETE };
