/**
 * The model an outside agent's roster entry names: Parley never calls it, the agent's own client
 * does its thinking. `external:mcp` joined through the MCP endpoint.
 */
export const EXTERNAL_MCP_MODEL = "external:mcp";

/** Whether an agent is one from another system, which Parley never runs itself. */
export function isExternalModel(model: string): boolean {
  return model.startsWith("external:");
}
