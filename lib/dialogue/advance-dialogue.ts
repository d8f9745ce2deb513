import { and, asc, eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { type Agent, type Dialogue, type Run, agents, dialogues, events } from "@/db/schema";
import { enqueueRun } from "@/lib/agents/enqueue-run";
import type { TurnOutcome } from "@/lib/agents/turn-outcome";
import { BUILD_REVIEW_PERSONAS } from "@/lib/build-review/advance";
import type { Actor, Emit } from "@/lib/events/write-room-events";
import { priceFor } from "@/lib/models/pricing";
import { textSatisfied } from "./detect";
import type { PayloadOf } from "@/lib/protocol";
import { type SaidEarlier, answerTask, replyTask } from "./prompts";

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
    return closeDialogue(
      tx,
      emit,
      dialogue,
      asker,
      "cancelled",
      actor,
      outcome.at,
      `${actor.name}'s turn ${outcome.status}.`,
      outcome.status === "failed",
    );
  }

  const answering = run.purpose.kind === "answer";
  const round = dialogue.rounds + 1;
  const costKnown = priceFor((answering ? addressee : asker).model) !== null;
  const text = outcome.text || "(no answer)";
  // An answer is followed by the asker's reply; a reply settles the dialogue, spends its last round, or asks again.
  const satisfied = !answering && (dialogue.askerSatisfied ?? textSatisfied(text));
  const closing = !answering && (satisfied || round >= dialogue.maxRounds);
  emit({
    type: "dialogue.message",
    actor,
    targetAgent: answering ? asker.id : addressee.id,
    nextSteps: [closing ? "dialogue.closed" : "dialogue.message"],
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
  const queueTurn = (speaker: Agent, to: Agent, kind: "answer" | "reply", task: ReturnType<typeof answerTask>) =>
    enqueueRun(tx, emit, {
      roomId: dialogue.roomId,
      agentId: speaker.id,
      trigger: "dialogue",
      requestedBy: to,
      ...task,
      parentRunId: run.id,
      chainDepth: run.chainDepth,
      correlationId: dialogue.correlationId,
      purpose: { kind, dialogueId: dialogue.id },
      at: outcome.at,
    });
  // What was said before this message, for the next turn to read the whole conversation.
  const earlier = async (): Promise<SaidEarlier[]> => {
    const said = await tx
      .select({ payload: events.payload })
      .from(events)
      .where(and(eq(events.roomId, dialogue.roomId), eq(events.correlationId, dialogue.correlationId), eq(events.type, "dialogue.message")))
      .orderBy(asc(events.seq));
    const nameOf = (agentId: string) => team.find((member) => member.id === agentId)?.name ?? "A teammate";
    return said
      .map(({ payload }) => payload as PayloadOf<"dialogue.message">)
      .filter((message) => message.dialogueId === dialogue.id)
      .map((message) => ({ from: nameOf(message.fromAgentId), text: message.text }));
  };
  if (answering) {
    await tx
      .update(dialogues)
      .set({ ...totals, askerSatisfied: null })
      .where(eq(dialogues.id, dialogue.id));
    await queueTurn(asker, addressee, "reply", replyTask(dialogue, addressee.name, round, text, await earlier()));
    return null;
  }
  const updated = { ...dialogue, ...totals, rounds: round };
  await tx
    .update(dialogues)
    .set({ ...totals, rounds: round })
    .where(eq(dialogues.id, dialogue.id));
  if (satisfied) return closeDialogue(tx, emit, updated, asker, "resolved", actor, outcome.at, null);
  if (round >= dialogue.maxRounds)
    return closeDialogue(tx, emit, updated, asker, "unresolved", actor, outcome.at, dialogue.remaining ?? text);
  await queueTurn(addressee, asker, "answer", answerTask(dialogue, asker.name, round + 1, text, await earlier()));
  return null;
}

/**
 * What follows a dialogue's end (its event's `next_steps`): in a build review, the Coder's code
 * when the Coder asked, otherwise the review's decision on the Reviewer's verdict — the next
 * version or the close. A dialogue outside a review has nothing after it.
 */
function stepsAfter(dialogue: Dialogue, asker: Pick<Agent, "persona">): string[] {
  if (!dialogue.buildReviewId) return [];
  return asker.persona === BUILD_REVIEW_PERSONAS.coder ? ["review.code"] : ["review.code", "review.closed"];
}

async function closeDialogue(
  tx: DbOrTx,
  emit: Emit,
  dialogue: Dialogue,
  asker: Pick<Agent, "persona">,
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
    nextSteps: stepsAfter(dialogue, asker),
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
