import { callSignature } from "@/lib/limits/repeated-calls";
import type { ActiveRun } from "../run-context";

/**
 * The idempotency key of a tool call's write: the run, the step, and which call of the step
 * it is — the tool with its arguments, and how many identical calls came before it in the step.
 *
 * A worker can die after a step's tools ran but before the step was saved; the next attempt
 * takes that step again. When the model makes the same call again, its write finds the
 * earlier one under the same key and is not made twice. Keying by the call itself rather
 * than by its position keeps this working when the model orders its calls differently, and
 * gives a call the model did not make before a key of its own instead of a clash.
 *
 * Computed by `writingTool` as a call is made, before the tool's first `await`: calls of a step
 * start in the order the model made them, so identical calls are numbered the same way each time.
 */
export function toolCallKey(active: ActiveRun, toolName: string, input: unknown): string {
  const call = callSignature(toolName, input);
  const before = active.state.callsThisStep.get(call) ?? 0;
  active.state.callsThisStep.set(call, before + 1);
  return `run:${active.run.id}:${active.state.step}:${call}:${before}`;
}
