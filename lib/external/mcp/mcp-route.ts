import type { AgentModelOptions } from "@/db/schema";
import { RETRY_DELAYS_MS } from "@/lib/agents/visible-retries";
import { getEnv } from "@/lib/env";
import { withRequestCause } from "@/lib/events/cause";
import { resolveModel } from "@/lib/models/registry";
import { getRuntime } from "@/lib/runtime";
import { handleMcpRequest } from "./mcp-endpoint";
import type { McpDeps } from "./room-mcp-server";

/**
 * Serves the MCP endpoint from a route handler, with the app's runtime; `roomId` when the URL
 * names a room. The shadows that answer an outside agent's questions call their models as the
 * agent worker's runs do: the same timeout and visible retries.
 */
export async function serveMcp(request: Request, roomId?: string): Promise<Response> {
  const deps = await mcpDeps();
  return withRequestCause(request.headers, () => handleMcpRequest(deps, request, { roomId }));
}

/** What the outside agents' endpoints (MCP, A2A) need of the app's runtime. */
export async function mcpDeps(): Promise<McpDeps> {
  const runtime = await getRuntime();
  return {
    database: runtime.database,
    bus: runtime.bus,
    resolveModel: (spec: string, agent?: AgentModelOptions) => resolveModel(spec, { agent }),
    modelCallPolicy: { retryDelaysMs: RETRY_DELAYS_MS, timeoutMs: getEnv().PARLEY_MODEL_TIMEOUT_SECONDS * 1000 },
  };
}
