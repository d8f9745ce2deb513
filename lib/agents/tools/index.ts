import { type ToolSet, zodSchema } from "ai";
import { guardRepeatedCalls } from "@/lib/limits/repeated-calls";
import type { ActiveRun } from "../run-context";
import { registeredWorkflows } from "../workflow-registry";
import { createBoardTools } from "./board-tools";
import { createBroadcastTools } from "./broadcast-tools";
import { createCanvasTools } from "./canvas-tools";
import { hidingServerErrors } from "./hide-server-errors";
import { createMemoryTools } from "./memory-tools";
import { createRequestTools } from "./request-agent";

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
 * the room read. A workflow's own run (a brainstorm stage's) gets its workflow's tools and the
 * team-memory tools only; other runs get the room's tools and what each workflow adds to them.
 */
export function createAgentTools(active: ActiveRun) {
  const fromWorkflows = registeredWorkflows().flatMap((module) => {
    const given = module.tools?.(active);
    return given ? [given] : [];
  });
  const own = fromWorkflows.find((given) => given.only);
  if (own) {
    return guardRepeatedCalls(active, hidingServerErrors(withSchemasConvertedOnce({ ...own.tools, ...createMemoryTools(active) })));
  }
  return guardRepeatedCalls(
    active,
    hidingServerErrors(
      withSchemasConvertedOnce({
        ...createCanvasTools(active),
        ...createBoardTools(active),
        ...createRequestTools(active),
        ...createMemoryTools(active),
        ...fromWorkflows.reduce<ToolSet>((all, given) => Object.assign(all, given.tools), {}),
        ...(active.settings.broadcast === "off" ? {} : createBroadcastTools(active)),
      }),
    ),
  );
}
