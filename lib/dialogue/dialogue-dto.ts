import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { type Dialogue, dialogues, events } from "@/db/schema";
import { eventFromRow } from "@/lib/events/event-row";
import type { DialogueDto, DialogueThreadDto } from "@/lib/protocol";

/** A dialogue's opening as `dialogue.opened` announces it. */
export function dialogueToDto(dialogue: Dialogue): DialogueDto {
  return {
    id: dialogue.id,
    askerAgentId: dialogue.askerAgentId,
    addresseeAgentId: dialogue.addresseeAgentId,
    topic: dialogue.topic,
    reason: dialogue.reason,
    maxRounds: dialogue.maxRounds,
    reviewId: dialogue.buildReviewId,
    openedAt: dialogue.createdAt.toISOString(),
  };
}

/**
 * The room's open dialogues as the page shows them, oldest first, each with its messages so far
 * (read from their events): however long ago one opened, the page can show it and follow it.
 */
export async function openDialogueThreads(tx: DbOrTx, roomId: string): Promise<DialogueThreadDto[]> {
  const open = await tx
    .select()
    .from(dialogues)
    .where(and(eq(dialogues.roomId, roomId), eq(dialogues.status, "open")))
    .orderBy(asc(dialogues.createdAt));
  if (open.length === 0) return [];
  const rows = await tx
    .select()
    .from(events)
    .where(
      and(
        eq(events.roomId, roomId),
        eq(events.type, "dialogue.message"),
        inArray(
          sql<string>`${events.payload}->>'dialogueId'`,
          open.map((dialogue) => dialogue.id),
        ),
      ),
    )
    .orderBy(asc(events.seq));
  const messages = rows
    .map(eventFromRow)
    .flatMap((event) => (event.type === "dialogue.message" ? [{ ...event.payload, at: event.timestamp }] : []));
  return open.map((dialogue) => ({
    dialogue: dialogueToDto(dialogue),
    messages: messages.filter((message) => message.dialogueId === dialogue.id),
    closed: null,
  }));
}
