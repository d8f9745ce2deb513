import { getEnv } from "@/lib/env";
import { guardRepeatedCalls } from "@/lib/limits/repeated-calls";
import { type ConnectedMcpTools, connectMcpTools } from "@/lib/mcp-tools/connect-mcp-tools";
import type { ActiveRun } from "../run-context";
import { MODEL_CALL_TIMEOUT_MS } from "../visible-retries";

/**
 * The tools of the MCP servers an agent's team file gave it, connected for one run and offered
 * beside Parley's own: counted by the repeated-call guard like every other call, each call cut
 * off at the run's model-call time limit. Their failures reach the model as they are (the
 * server's words, not Parley's). The connections end with the run.
 */
export async function connectAgentMcpTools(active: ActiveRun): Promise<ConnectedMcpTools> {
  const connected = await connectMcpTools(active.agent.modelOptions.mcpServers ?? [], {
    env: getEnv(),
    timeoutMs: active.modelCallPolicy?.timeoutMs ?? MODEL_CALL_TIMEOUT_MS,
  });
  guardRepeatedCalls(active, connected.tools);
  return connected;
}
