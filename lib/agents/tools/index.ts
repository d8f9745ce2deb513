import { type ToolSet, zodSchema } from "ai";
import { guardRepeatedCalls } from "@/lib/limits/repeated-calls";
import type { ActiveRun } from "../run-context";
import { createAskTeammateTool } from "./ask-teammate";
import { createBoardTools } from "./board-tools";
import { createBrainstormTools } from "./brainstorm-tools";
import { createBroadcastTools } from "./broadcast-tools";
import { createCanvasTools } from "./canvas-tools";
import { hidingServerErrors } from "./hide-server-errors";
import { createMemoryTools } from "./memory-tools";
import { createRequestTools } from "./request-agent";
import { createReviewTools } from "./review-tools";

/**
 * The SDK turns a zod input schema into JSON Schema again at every step; wrapped once here,
 * each tool's schema is converted once for the whole run.
 */
function withSchemasConvertedOnce<T extends ToolSet>(tools: T): T {
  for (const definition of Object.values(tools)) {
    const schema = definition.inputSchema as unknown;
    if (schema && typeof schema === "object" && "_zod" in schema) {
      definition.inputSchema = zodSchema(schema as Parameters<typeof zodSchema>[0]);
    }
  }
  return tools;
}

/**
 * Every tool an agent gets in a room, built for one run, each behind the repeated-call guard
 * (docs/behaviour/limits.md) and with its server-side failures kept out of what the model and
 * the room read. A brainstorm stage's run gets its stage's submit tool and the team-memory
 * tools only: the process, not the agent, decides who works next, and a divergent thinker has
 * nothing to reach the others with.
 */
export function createAgentTools(active: ActiveRun) {
  if (active.run.purpose?.kind === "brainstorm") {
    return guardRepeatedCalls(
      active,
      hidingServerErrors(withSchemasConvertedOnce({ ...createBrainstormTools(active), ...createMemoryTools(active) })),
    );
  }
  return guardRepeatedCalls(
    active,
    hidingServerErrors(
      withSchemasConvertedOnce({
        ...createCanvasTools(active),
        ...createBoardTools(active),
        ...createRequestTools(active),
        ...createMemoryTools(active),
        ...createReviewTools(active),
        ...createAskTeammateTool(active),
        ...(active.settings.broadcast === "off" ? {} : createBroadcastTools(active)),
      }),
    ),
  );
}
