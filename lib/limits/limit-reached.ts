import type { Actor, Emit } from "@/lib/events/write-room-events";
import type { ErrorDetails, LimitReachedPayload } from "@/lib/protocol";

/** How a run stopped by a limit reads in its `run.finished` error. */
export function limitErrorDetails(reached: LimitReachedPayload): ErrorDetails {
  return { error_type: reached.limit, error_message: reached.message, retry_possible: false };
}

/** Tells the room a limit stopped an agent (`limit.reached`), in the workflow the agent's run belongs to. */
export function emitLimitReached(emit: Emit, actor: Actor, correlationId: string, reached: LimitReachedPayload): void {
  emit({
    type: "limit.reached",
    actor,
    correlationId,
    status: "error",
    errorDetails: limitErrorDetails(reached),
    payload: reached,
  });
}
