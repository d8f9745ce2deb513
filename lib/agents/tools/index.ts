import type { ActiveRun } from "../run-context";
import { createBoardTools } from "./board-tools";
import { createBroadcastTools } from "./broadcast-tools";
import { createCanvasTools } from "./canvas-tools";
import { createRequestAgentTool } from "./request-agent";

/** Every tool an agent gets in a room, built for one run. */
export function createAgentTools(active: ActiveRun) {
  return {
    ...createCanvasTools(active),
    ...createBoardTools(active),
    request_agent: createRequestAgentTool(active),
    ...(active.settings.broadcast === "off" ? {} : createBroadcastTools(active)),
  };
}

export type AgentTools = ReturnType<typeof createAgentTools>;
