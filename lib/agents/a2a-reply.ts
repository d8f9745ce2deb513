import { eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { type Run, agents, rooms } from "@/db/schema";
import { postBoardEntry } from "@/lib/board/post-entry";
import { placeNode } from "@/lib/canvas/create-node";
import { homeArea } from "@/lib/canvas/free-spot";
import { insertNodes, newNodeRow } from "@/lib/canvas/insert-nodes";
import type { Actor, Emit } from "@/lib/events/write-room-events";
import { LIMITS } from "@/lib/protocol/limits";
import { parseRoomSettings } from "@/lib/rooms/room-settings";

function clip(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}

/**
 * A remote (A2A) teammate has no canvas or board tools: what its run replied — its message, or
 * its task's artifacts — is put on the canvas as its note and announced on the board as its
 * contribution naming that note, in the write that ends the run, so the room sees its work as
 * it sees a Parley agent's. Runs of Parley's own agents, failed runs and empty replies add nothing.
 */
export async function postA2aReply(
  tx: DbOrTx,
  emit: Emit,
  run: Run,
  outcome: { status: string; text: string; at: Date },
  agent: Actor,
): Promise<void> {
  const text = outcome.text.trim();
  if (outcome.status !== "succeeded" || !text) return;
  const [member] = await tx.select({ model: agents.model, persona: agents.persona }).from(agents).where(eq(agents.id, run.agentId));
  if (!member?.model.startsWith("a2a:")) return;
  const noteText = clip(text, LIMITS.noteText);
  const spot = await placeNode(tx, run.roomId, homeArea(member.persona), { kind: "note", text: noteText });
  const row = newNodeRow({
    roomId: run.roomId,
    kind: "note",
    text: noteText,
    ...spot,
    author: { kind: "agent", ...agent },
    at: outcome.at,
  });
  await insertNodes(tx, emit, [row], { correlationId: run.correlationId });
  const [room] = await tx.select({ settings: rooms.settings }).from(rooms).where(eq(rooms.id, run.roomId));
  await postBoardEntry(tx, emit, {
    roomId: run.roomId,
    kind: "contribution",
    content: { summary: clip(text.replace(/\s+/g, " "), LIMITS.boardText), nodeIds: [row.id] },
    author: { ...agent, agentId: run.agentId, runId: run.id },
    expiryMinutes: parseRoomSettings(room?.settings).board_expiry_minutes,
    correlationId: run.correlationId,
    at: outcome.at,
  });
}
