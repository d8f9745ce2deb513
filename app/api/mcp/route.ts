// GET|POST|DELETE /api/mcp — the instance's MCP endpoint (Streamable HTTP): the token says which room and agent
import { serveMcp } from "@/lib/external/mcp/mcp-route";

export const dynamic = "force-dynamic";

const handle = (request: Request) => serveMcp(request);

export { handle as GET, handle as POST, handle as DELETE };
