// GET  /api/rooms/[roomId]/agents/[agentId]/a2a — the agent's A2A agent card (rooms that publish them)
// POST /api/rooms/[roomId]/agents/[agentId]/a2a — A2A JSON-RPC: a message to the agent, answered as an A2A task (a room token)
import { serveParleyAgentA2a } from "@/lib/external/a2a/parley-agent-a2a";
import { withRequestCause } from "@/lib/events/cause";
import { mcpDeps } from "@/lib/external/mcp/mcp-route";

import { methodsNotAllowed } from "@/lib/http/method-not-allowed";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ roomId: string; agentId: string }> };
const handle = async (request: Request, { params }: Context) => {
  const [deps, path] = await Promise.all([mcpDeps(), params]);
  return withRequestCause(request.headers, () => serveParleyAgentA2a(deps, request, path));
};

export const GET = handle;
export const POST = handle;

// Any other method: a 405 in JSON naming these.
export const { PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed("GET", "POST");
