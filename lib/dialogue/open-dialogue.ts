import { randomUUID } from "node:crypto";
import { and, count, eq, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { type Agent, type Dialogue, type Run, dialogues, runs } from "@/db/schema";
import { enqueueRun } from "@/lib/agents/enqueue-run";
import type { Emit } from "@/lib/events/write-room-events";
import type { RoomSettings } from "@/lib/rooms/room-settings";
import { dialogueToDto } from "./dialogue-dto";
import { answerTask } from "./prompts";

/** The room's settings a dialogue keeps to: its rounds, and how many may be open at once. */
export type DialogueLimits = Pick<RoomSettings, "dialogue_max_rounds" | "max_open_dialogues">;

/** Whether `run` has put a question to a teammate (ask_teammate): a dialogue's first answer follows from it. */
export async function askedTeammate(tx: DbOrTx, run: Pick<Run, "id" | "roomId" | "correlationId">): Promise<boolean> {
  const [answer] = await tx
    .select({ id: runs.id })
    .from(runs)
    .where(
      and(
        eq(runs.roomId, run.roomId),
        eq(runs.correlationId, run.correlationId),
        eq(runs.parentRunId, run.id),
        sql`${runs.purpose}->>'kind' = 'answer'`,
      ),
    )
    .limit(1);
  return !!answer;
}

async function openDialogueCount(tx: DbOrTx, roomId: string): Promise<number> {
  const [open] = await tx
    .select({ value: count() })
    .from(dialogues)
    .where(and(eq(dialogues.roomId, roomId), eq(dialogues.status, "open")));
  return Number(open?.value ?? 0);
}

/**
 * Opens a dialogue: `asker` wants `addressee` to answer `topic`; the addressee's answer is
 * queued at once. Returns null when dialogues are off in the room (0 rounds) or the room holds
 * its most open dialogues (`max_open_dialogues`) already.
 */
export async function openDialogue(
  tx: DbOrTx,
  emit: Emit,
  input: {
    roomId: string;
    correlationId: string;
    asker: Pick<Agent, "id" | "name">;
    addressee: Pick<Agent, "id" | "name">;
    topic: string;
    reason: string;
    settings: DialogueLimits;
    buildReviewId: string | null;
    chainDepth: number;
    parentRunId: string | null;
    at: Date;
  },
): Promise<Dialogue | null> {
  const maxRounds = input.settings.dialogue_max_rounds;
  if (maxRounds <= 0 || (await openDialogueCount(tx, input.roomId)) >= input.settings.max_open_dialogues) return null;
  const [dialogue] = await tx
    .insert(dialogues)
    .values({
      id: randomUUID(),
      roomId: input.roomId,
      correlationId: input.correlationId,
      buildReviewId: input.buildReviewId,
      askerAgentId: input.asker.id,
      addresseeAgentId: input.addressee.id,
      topic: input.topic.slice(0, 1000),
      reason: input.reason,
      maxRounds,
      createdAt: input.at,
    })
    .returning();
  emit({
    type: "dialogue.opened",
    actor: input.asker,
    targetAgent: input.addressee.id,
    // The addressee's answer.
    nextSteps: ["dialogue.message"],
    correlationId: input.correlationId,
    status: "pending",
    payload: { dialogue: dialogueToDto(dialogue!) },
  });
  await enqueueRun(tx, emit, {
    roomId: input.roomId,
    agentId: input.addressee.id,
    trigger: "dialogue",
    requestedBy: input.asker,
    ...answerTask(dialogue!, input.asker.name, 1, null),
    parentRunId: input.parentRunId,
    chainDepth: input.chainDepth,
    correlationId: input.correlationId,
    purpose: { kind: "answer", dialogueId: dialogue!.id },
    at: input.at,
  });
  return dialogue!;
}
