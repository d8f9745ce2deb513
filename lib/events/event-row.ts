import type { EventRow } from "@/db/schema";
import type { StoredEvent } from "@/lib/protocol";

/** Maps a stored row to the protocol message the browser and agents see. */
export function eventFromRow(row: EventRow): StoredEvent {
  return {
    id: row.id,
    room_id: row.roomId,
    seq: row.seq,
    correlation_id: row.correlationId,
    agent: row.agent,
    agent_name: row.agentName,
    target_agent: row.targetAgent,
    timestamp: row.createdAt.toISOString(),
    type: row.type,
    status: row.status,
    payload: row.payload,
    next_steps: row.nextSteps,
    error_details: row.errorDetails,
  } as StoredEvent;
}
