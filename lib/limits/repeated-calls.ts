import { createHash } from "node:crypto";
import type { ModelMessage, ToolSet } from "ai";
import type { ActiveRun } from "@/lib/agents/run-context";
import type { ToolFailure } from "@/lib/agents/tools/tool-result";
import { canonicalJson } from "@/lib/events/idempotency";

/** What identifies a tool call: the tool and its arguments, whatever order the arguments' keys came in. */
export function callSignature(toolName: string, input: unknown): string {
  return createHash("sha256")
    .update(`${toolName}\n${canonicalJson(input)}`)
    .digest("base64url")
    .slice(0, 22);
}

/** How many times each call (tool and arguments) was made in the steps an earlier attempt saved. */
export function countCalls(steps: ModelMessage[][]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const message of steps.flat()) {
    if (message.role !== "assistant" || !Array.isArray(message.content)) continue;
    for (const part of message.content) {
      if (part.type !== "tool-call") continue;
      const signature = callSignature(part.toolName, part.input);
      counts.set(signature, (counts.get(signature) ?? 0) + 1);
    }
  }
  return counts;
}

/**
 * Counts a call towards the run's repeats; at the room's `repeated_tool_call_limit` the call is
 * refused with an error the model reads, and the run is marked to stop once its step is saved
 * (its `limit.reached` event says why).
 */
function countCall(active: ActiveRun, toolName: string, input: unknown): ToolFailure | null {
  const signature = callSignature(toolName, input);
  const count = (active.state.callsThisRun.get(signature) ?? 0) + 1;
  active.state.callsThisRun.set(signature, count);
  const limit = active.settings.repeated_tool_call_limit;
  if (count < limit) return null;
  const message =
    `${active.agent.name} called ${toolName} with the same arguments ${count} times in one run, ` +
    `which goes round in circles: the call was not made again and the run stops here.`;
  active.state.stop ??= {
    limit: "repeated_tool_call",
    runId: active.run.id,
    agentId: active.agent.id,
    message,
    used: count,
    allowed: limit,
    resetsAt: null,
  };
  return { ok: false, error: message };
}

/** Puts every tool of a run behind the repeated-call guard. Synchronous before each call, so calls keep their order. */
export function guardRepeatedCalls<T extends ToolSet>(active: ActiveRun, tools: T): T {
  for (const [name, definition] of Object.entries(tools)) {
    const execute = definition.execute;
    if (!execute) continue;
    definition.execute = (input: unknown, options: Parameters<typeof execute>[1]) =>
      countCall(active, name, input) ?? execute(input, options);
  }
  return tools;
}
