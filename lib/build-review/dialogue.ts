import { randomUUID } from "node:crypto";
import { and, count, eq, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { type Agent, type Dialogue, type Run, agents, dialogues, runs } from "@/db/schema";
import { enqueueRun } from "@/lib/agents/enqueue-run";
import type { Actor, Emit } from "@/lib/events/write-room-events";
import { priceFor } from "@/lib/models/pricing";
import { textSatisfied } from "@/lib/dialogue/detect";
import { answerPrompt, replyPrompt } from "./prompts";

/** Dialogues a room may hold open at once. */
export const MAX_OPEN_DIALOGUES = 2;

/** Whether `run` has put a question to a teammate (ask_teammate): a dialogue's first answer follows from it. */
export async function askedTeammate(tx: DbOrTx, run: Pick<Run, "id" | "roomId" | "correlationId">): Promise<boolean> {
  const [answer] = await tx
    .select({ id: runs.id })
    .from(runs)
    .where(and(eq(runs.roomId, run.roomId), eq(runs.correlationId, run.correlationId), eq(runs.parentRunId, run.id), sql`${runs.purpose}->>'kind' = 'answer'`))
    .limit(1);
  return !!answer;
}

export async function openDialogueCount(tx: DbOrTx, roomId: string): Promise<number> {
  const [open] = await tx.select({ value: count() }).from(dialogues).where(and(eq(dialogues.roomId, roomId), eq(dialogues.status, "open")));
  return Number(open?.value ?? 0);
}

/**
 * Opens a dialogue: `asker` wants `addressee` to answer `topic`; the addressee's answer is
 * queued at once. Returns null when the room already holds its most open dialogues.
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
    maxRounds: number;
    buildReviewId: string | null;
    chainDepth: number;
    parentRunId: string | null;
    at: Date;
  },
): Promise<Dialogue | null> {
  if (input.maxRounds <= 0 || (await openDialogueCount(tx, input.roomId)) >= MAX_OPEN_DIALOGUES) return null;
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
      maxRounds: input.maxRounds,
      createdAt: input.at,
    })
    .returning();
  emit({
    type: "dialogue.opened",
    actor: input.asker,
    targetAgent: input.addressee.id,
    correlationId: input.correlationId,
    status: "pending",
    payload: {
      dialogue: {
        id: dialogue!.id,
        askerAgentId: input.asker.id,
        addresseeAgentId: input.addressee.id,
        topic: dialogue!.topic,
        reason: input.reason,
        maxRounds: input.maxRounds,
        reviewId: input.buildReviewId,
        openedAt: input.at.toISOString(),
      },
    },
  });
  await enqueueRun(tx, emit, {
    roomId: input.roomId,
    agentId: input.addressee.id,
    trigger: "dialogue",
    requestedBy: input.asker,
    prompt: answerPrompt(dialogue!, input.asker.name, 1, null),
    parentRunId: input.parentRunId,
    chainDepth: input.chainDepth,
    correlationId: input.correlationId,
    purpose: { kind: "answer", dialogueId: dialogue!.id },
    at: input.at,
  });
  return dialogue!;
}

export interface TurnOutcome {
  status: "succeeded" | "failed" | "cancelled";
  text: string;
  durationMs: number;
  at: Date;
}

/**
 * Moves a dialogue on when one of its turns ends: an answer is recorded and the asker's reply
 * queued; a reply is recorded and either settles it (the asker is satisfied), asks again
 * (rounds left), or leaves it unresolved. Returns the dialogue when it closed just now.
 */
export async function advanceDialogue(tx: DbOrTx, emit: Emit, run: Run, actor: Actor, outcome: TurnOutcome): Promise<Dialogue | null> {
  if (run.purpose?.kind !== "answer" && run.purpose?.kind !== "reply") return null;
  const [dialogue] = await tx.select().from(dialogues).where(eq(dialogues.id, run.purpose.dialogueId)).for("update");
  if (!dialogue || dialogue.status !== "open") return null;
  const team = await tx.select().from(agents).where(eq(agents.roomId, dialogue.roomId));
  const asker = team.find((member) => member.id === dialogue.askerAgentId)!;
  const addressee = team.find((member) => member.id === dialogue.addresseeAgentId)!;
  if (outcome.status !== "succeeded") {
    return closeDialogue(tx, emit, dialogue, "cancelled", actor, outcome.at, `${actor.name}'s turn ${outcome.status}.`, outcome.status === "failed");
  }

  const answering = run.purpose.kind === "answer";
  const round = dialogue.rounds + 1;
  const costKnown = priceFor((answering ? addressee : asker).model) !== null;
  const text = outcome.text || "(no answer)";
  emit({
    type: "dialogue.message",
    actor,
    targetAgent: answering ? asker.id : addressee.id,
    correlationId: dialogue.correlationId,
    payload: {
      dialogueId: dialogue.id,
      round,
      fromAgentId: answering ? addressee.id : asker.id,
      toAgentId: answering ? asker.id : addressee.id,
      text: text.slice(0, 4000),
      runId: run.id,
      durationMs: outcome.durationMs,
      inputTokens: run.inputTokens,
      outputTokens: run.outputTokens,
      costUsd: run.costUsd,
      costKnown,
    },
  });
  const totals = {
    durationMs: dialogue.durationMs + outcome.durationMs,
    inputTokens: dialogue.inputTokens + run.inputTokens,
    outputTokens: dialogue.outputTokens + run.outputTokens,
    costUsd: dialogue.costUsd + run.costUsd,
    costKnown: dialogue.costKnown && costKnown,
  };
  // The next turn: the other one speaks, in the same workflow, one link after this run.
  const queueTurn = (speaker: Agent, to: Agent, kind: "answer" | "reply", prompt: string) =>
    enqueueRun(tx, emit, {
      roomId: dialogue.roomId,
      agentId: speaker.id,
      trigger: "dialogue",
      requestedBy: to,
      prompt,
      parentRunId: run.id,
      chainDepth: run.chainDepth,
      correlationId: dialogue.correlationId,
      purpose: { kind, dialogueId: dialogue.id },
      at: outcome.at,
    });
  if (answering) {
    await tx.update(dialogues).set({ ...totals, askerSatisfied: null }).where(eq(dialogues.id, dialogue.id));
    await queueTurn(asker, addressee, "reply", replyPrompt(dialogue, addressee.name, round, text));
    return null;
  }
  const satisfied = dialogue.askerSatisfied ?? textSatisfied(text);
  const updated = { ...dialogue, ...totals, rounds: round };
  await tx.update(dialogues).set({ ...totals, rounds: round }).where(eq(dialogues.id, dialogue.id));
  if (satisfied) return closeDialogue(tx, emit, updated, "resolved", actor, outcome.at, null);
  if (round >= dialogue.maxRounds) return closeDialogue(tx, emit, updated, "unresolved", actor, outcome.at, dialogue.remaining ?? text);
  await queueTurn(addressee, asker, "answer", answerPrompt(dialogue, asker.name, round + 1, text));
  return null;
}

async function closeDialogue(
  tx: DbOrTx,
  emit: Emit,
  dialogue: Dialogue,
  outcome: "resolved" | "unresolved" | "cancelled",
  actor: Actor,
  at: Date,
  remaining: string | null,
  failed = false,
): Promise<Dialogue> {
  const [closed] = await tx
    .update(dialogues)
    .set({ status: outcome, closedAt: at, remaining })
    .where(eq(dialogues.id, dialogue.id))
    .returning();
  emit({
    type: "dialogue.closed",
    actor,
    correlationId: dialogue.correlationId,
    // A dialogue stopped or left unresolved is an outcome, not an error; a turn that failed is.
    status: failed ? "error" : "success",
    payload: {
      dialogueId: dialogue.id,
      outcome,
      rounds: closed!.rounds,
      remaining: remaining?.slice(0, 1000) ?? null,
      durationMs: closed!.durationMs,
      inputTokens: closed!.inputTokens,
      outputTokens: closed!.outputTokens,
      costUsd: closed!.costUsd,
      costKnown: closed!.costKnown,
    },
  });
  return closed!;
}
