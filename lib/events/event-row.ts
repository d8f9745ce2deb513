import type { EventRow } from "@/db/schema";
import { type StoredErrorDetails, type StoredEvent, readErrorDetails } from "@/lib/protocol";

/** Event types whose payload carries error details of its own (`error`), named as the envelope's. */
const PAYLOAD_ERROR_TYPES: ReadonlySet<string> = new Set(["run.finished", "run.retrying", "broadcast.retrying"]);

/**
 * The payload as the protocol names it: error details stored by older rows in camelCase are
 * read in the protocol's snake_case names.
 */
function payloadOf(row: EventRow): Record<string, unknown> {
  const error = row.payload.error as StoredErrorDetails | null | undefined;
  if (!PAYLOAD_ERROR_TYPES.has(row.type) || !error || "error_type" in error) return row.payload;
  return { ...row.payload, error: readErrorDetails(error) };
}

/** Maps a stored row to the protocol message the browser and agents see. */
export function eventFromRow(row: EventRow): StoredEvent {
  return {
    id: row.id,
    room_id: row.roomId,
    seq: row.seq,
    correlation_id: row.correlationId,
    causation_id: row.causationId ?? null,
    ...(row.traceParent ? { trace_parent: row.traceParent } : {}),
    agent: row.agent,
    agent_name: row.agentName,
    target_agent: row.targetAgent,
    timestamp: row.createdAt.toISOString(),
    type: row.type,
    status: row.status,
    payload: payloadOf(row),
    next_steps: row.nextSteps,
    error_details: readErrorDetails(row.errorDetails as StoredErrorDetails | null),
  } as StoredEvent;
}
