import { and, eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import {
  type Agent,
  type BuildReview,
  type Dialogue,
  type ReviewVerdict,
  type Run,
  agents,
  buildReviews,
  canvasNodes,
  dialogues,
  rooms,
} from "@/db/schema";
import { enqueueRun } from "@/lib/agents/enqueue-run";
import type { TurnOutcome } from "@/lib/agents/turn-outcome";
import { textVerdict } from "@/lib/dialogue/detect";
import { openDialogue } from "@/lib/dialogue/open-dialogue";
import { openDialogueFromWords } from "@/lib/dialogue/open-dialogue-from-words";
import { spokenSteps } from "@/lib/dialogue/spoken-steps";
import type { Actor, Emit } from "@/lib/events/write-room-events";
import { type RoomSettings, parseRoomSettings } from "@/lib/rooms/room-settings";
import { codeTask, readyTask, reviewTask } from "./prompts";
import type { BuildReviewTask } from "./task-data";

/** The three personas of a build review. */
export const BUILD_REVIEW_PERSONAS = { architect: "architect", coder: "coder", reviewer: "reviewer" } as const;

/**
 * What a verdict's event says follows it (`next_steps`): given in a dialogue of the review, the
 * dialogue's end, where it is weighed; with open questions, a dialogue with the Coder; one that
 * makes consensus, the review's close; otherwise the Coder's next version, or the close when
 * the rounds are spent.
 */
export function verdictNextSteps(verdict: Pick<ReviewVerdict, "verdict" | "issues" | "openQuestions">, inDialogue: boolean): string[] {
  if (inDialogue) return ["dialogue.closed"];
  if (verdict.openQuestions.length) return ["dialogue.opened"];
  const approves =
    verdict.verdict === "approve" && !verdict.issues.some((issue) => issue.severity === "blocker" || issue.severity === "major");
  return approves ? ["review.closed"] : ["review.code", "review.closed"];
}

const FINAL = new Set(["approved", "not_approved", "cancelled"]);

interface Context {
  tx: DbOrTx;
  emit: Emit;
  at: Date;
  team: Agent[];
  settings: RoomSettings;
}

async function contextOf(tx: DbOrTx, emit: Emit, roomId: string, at: Date): Promise<Context> {
  const [team, [room]] = await Promise.all([
    tx.select().from(agents).where(eq(agents.roomId, roomId)),
    tx.select({ settings: rooms.settings }).from(rooms).where(eq(rooms.id, roomId)),
  ]);
  return { tx, emit, at, team, settings: parseRoomSettings(room?.settings) };
}

function member(context: Context, persona: string): Agent {
  const found = context.team.find((agent) => agent.persona === persona);
  if (!found) throw new Error(`A build review needs a ${persona}.`);
  return found;
}

/**
 * Moves a build review on when one of its steps (brief, ready, code, review) ends, in the write
 * that ends the run: the next agent's run is queued, a dialogue opened, or the review closed
 * (approved, not approved, cancelled).
 */
export async function advanceBuildReview(tx: DbOrTx, emit: Emit, run: Run, actor: Actor, outcome: TurnOutcome): Promise<void> {
  const purpose = run.purpose;
  if (purpose?.kind !== "brief" && purpose?.kind !== "ready" && purpose?.kind !== "code" && purpose?.kind !== "review") return;
  const [review] = await tx.select().from(buildReviews).where(eq(buildReviews.id, purpose.buildReviewId)).for("update");
  if (!review || FINAL.has(review.status)) return;
  const context = await contextOf(tx, emit, run.roomId, outcome.at);
  if (outcome.status !== "succeeded") {
    await closeReview(
      context,
      review,
      outcome.status === "cancelled" ? "cancelled" : "not_approved",
      `${actor.name}'s run ${outcome.status}.`,
      outcome.status === "failed",
    );
    return;
  }
  if (purpose.kind === "brief") {
    const brief = outcome.text || "(The Architect wrote no brief.)";
    await tx.update(buildReviews).set({ brief, status: "preparing" }).where(eq(buildReviews.id, review.id));
    // Words of the brief that address a teammate open a dialogue beside the review, as the
    // Architect's ask_teammate does: the Coder gets the brief and gets ready all the same.
    await openDialogueFromSteps(context, run, null);
    await queueStep(context, review, run, {
      persona: BUILD_REVIEW_PERSONAS.coder,
      kind: "ready",
      ...readyTask({ ...review, brief }),
    });
  } else if (purpose.kind === "ready") {
    await afterReady(context, review, run, outcome.text);
  } else if (purpose.kind === "code") {
    // A question the Coder put while coding (in a review begun before it said it was ready first): the review waits for it.
    if (review.status === "in_dialogue") return;
    if (review.codeVersion < review.round) {
      await closeReview(context, review, "not_approved", "The Coder wrote no code.");
      return;
    }
    // Words of the code step that address a teammate open a dialogue of the review about the
    // version just written: the Reviewer reviews it once the dialogue has ended.
    if (await openDialogueFromSteps(context, run, review.id)) {
      await tx.update(buildReviews).set({ status: "in_dialogue" }).where(eq(buildReviews.id, review.id));
      return;
    }
    await tx.update(buildReviews).set({ status: "reviewing" }).where(eq(buildReviews.id, review.id));
    await queueReview(context, review, run);
  } else {
    await afterReview(context, review, run, outcome);
  }
}

/** Queues the next step of the review: `persona`'s run, one link after `after`, in the review's workflow. */
async function queueStep(
  context: Context,
  review: BuildReview,
  after: Run,
  step: { persona: string; kind: "ready" | "code" | "review"; prompt: string; taskData: BuildReviewTask; selectedNodeIds?: string[] },
): Promise<void> {
  await enqueueRun(context.tx, context.emit, {
    roomId: review.roomId,
    agentId: member(context, step.persona).id,
    trigger: "request",
    requestedBy: { id: "system", name: "Build review" },
    prompt: step.prompt,
    taskData: step.taskData,
    parentRunId: after.id,
    chainDepth: after.chainDepth,
    correlationId: review.correlationId,
    selectedNodeIds: step.selectedNodeIds ?? [],
    purpose: { kind: step.kind, buildReviewId: review.id },
    at: context.at,
  });
}

function queueCode(context: Context, review: BuildReview, after: Run, notes: string[] = []): Promise<void> {
  return queueStep(context, review, after, { persona: BUILD_REVIEW_PERSONAS.coder, kind: "code", ...codeTask(review, notes) });
}

/**
 * Opens a dialogue when what `run` said in any of its steps addresses a teammate (the newest
 * step that does), as a run outside any workflow would: of the review when `buildReviewId` is
 * given, beside it otherwise. Returns whether one opened.
 */
async function openDialogueFromSteps(context: Context, run: Run, buildReviewId: string | null): Promise<boolean> {
  const [latest, ...earlier] = spokenSteps(run.transcript);
  if (!latest) return false;
  const dialogue = await openDialogueFromWords(context.tx, context.emit, {
    run,
    text: latest,
    earlierTexts: earlier,
    team: context.team,
    settings: context.settings,
    buildReviewId,
    at: context.at,
  });
  return dialogue !== null;
}

async function queueReview(context: Context, review: BuildReview, after: Run, notes: string[] = []): Promise<void> {
  const [code] = review.codeNodeId
    ? await context.tx.select({ text: canvasNodes.text }).from(canvasNodes).where(eq(canvasNodes.id, review.codeNodeId))
    : [];
  await queueStep(context, review, after, {
    persona: BUILD_REVIEW_PERSONAS.reviewer,
    kind: "review",
    ...reviewTask(review, code?.text ?? "", notes),
    selectedNodeIds: review.codeNodeId ? [review.codeNodeId] : [],
  });
}

/**
 * The Coder's ready step ended: it asked its one question with ask_teammate (the review waits
 * for that dialogue), asked it in words (how a model without tools asks), or says it is ready —
 * what it said goes to the feed (`review.ready`) — and writes the code next.
 */
async function afterReady(context: Context, review: BuildReview, run: Run, text: string): Promise<void> {
  if (review.status === "in_dialogue") return;
  if (!review.clarified && (await askedInText(context, review, run, text))) return;
  context.emit({
    type: "review.ready",
    actor: member(context, BUILD_REVIEW_PERSONAS.coder),
    // The Coder's answer to the Architect's brief; its code follows.
    targetAgent: member(context, BUILD_REVIEW_PERSONAS.architect).id,
    nextSteps: ["review.code"],
    correlationId: review.correlationId,
    payload: { reviewId: review.id, text: text.slice(0, 2000) },
  });
  await context.tx.update(buildReviews).set({ status: "coding" }).where(eq(buildReviews.id, review.id));
  await queueCode(context, { ...review, status: "coding" }, run);
}

/** Records a verdict the Reviewer stated in words (`VERDICT: …`) as if it had submitted it. */
async function recordVerdict(context: Context, review: BuildReview, verdict: ReviewVerdict, inDialogue = false): Promise<ReviewVerdict> {
  await context.tx.update(buildReviews).set({ lastVerdict: verdict }).where(eq(buildReviews.id, review.id));
  context.emit({
    type: "review.verdict",
    actor: member(context, BUILD_REVIEW_PERSONAS.reviewer),
    targetAgent: member(context, BUILD_REVIEW_PERSONAS.coder).id,
    nextSteps: verdictNextSteps(verdict, inDialogue),
    correlationId: review.correlationId,
    payload: {
      reviewId: review.id,
      round: verdict.round,
      version: verdict.version,
      verdict: verdict.verdict,
      issues: verdict.issues,
      openQuestions: verdict.openQuestions,
    },
  });
  return verdict;
}

/** The verdict of this round: the one the Reviewer submitted, or the one its text states. */
async function verdictOf(context: Context, review: BuildReview, text: string): Promise<ReviewVerdict> {
  if (review.lastVerdict && review.lastVerdict.version === review.codeVersion && review.lastVerdict.round === review.round) {
    return review.lastVerdict;
  }
  const stated = textVerdict(text);
  return recordVerdict(context, review, {
    verdict: stated ?? "changes",
    issues: stated ? [] : [{ severity: "major", text: "The review stated no verdict." }],
    openQuestions: [],
    version: review.codeVersion,
    round: review.round,
  });
}

/** Whether a run called `toolName` in any of its steps. */
function calledTool(transcript: unknown[], toolName: string): boolean {
  return (transcript as ({ role?: unknown; toolCalls?: unknown } | null)[]).some(
    (entry) =>
      entry?.role === "assistant" &&
      Array.isArray(entry.toolCalls) &&
      entry.toolCalls.some((call: { name?: unknown } | null) => call?.name === toolName),
  );
}

/**
 * The Reviewer's reply in a dialogue of its review may state a new verdict in words, as a model
 * without tools does: a line `VERDICT: APPROVE` or `VERDICT: CHANGES`, never a word in its prose.
 * It is the verdict on the latest version, weighed when the dialogue closes, unless the reply
 * submitted one with submit_verdict. Asking for changes again keeps the issues it had listed.
 */
export async function applyVerdictInReply(tx: DbOrTx, emit: Emit, run: Run, outcome: TurnOutcome): Promise<void> {
  if (run.purpose?.kind !== "reply" || outcome.status !== "succeeded") return;
  const stated = textVerdict(outcome.text);
  if (!stated || calledTool(run.transcript, "submit_verdict")) return;
  const [dialogue] = await tx
    .select({ buildReviewId: dialogues.buildReviewId })
    .from(dialogues)
    .where(eq(dialogues.id, run.purpose.dialogueId));
  if (!dialogue?.buildReviewId) return;
  const [review] = await tx.select().from(buildReviews).where(eq(buildReviews.id, dialogue.buildReviewId)).for("update");
  if (!review || FINAL.has(review.status) || review.codeVersion === 0) return;
  const context = await contextOf(tx, emit, review.roomId, outcome.at);
  if (run.agentId !== member(context, BUILD_REVIEW_PERSONAS.reviewer).id) return;
  const earlier = review.lastVerdict?.version === review.codeVersion ? review.lastVerdict.issues : [];
  await recordVerdict(
    context,
    review,
    { verdict: stated, issues: stated === "approve" ? [] : earlier, openQuestions: [], version: review.codeVersion, round: review.round },
    true,
  );
}

async function afterReview(context: Context, review: BuildReview, run: Run, outcome: TurnOutcome): Promise<void> {
  const verdict = await verdictOf(context, review, outcome.text);
  // The Reviewer put a question with ask_teammate: the review waits for that dialogue.
  const [asked] = await context.tx
    .select({ id: dialogues.id })
    .from(dialogues)
    .where(and(eq(dialogues.buildReviewId, review.id), eq(dialogues.status, "open")))
    .limit(1);
  if (asked) {
    await context.tx.update(buildReviews).set({ status: "in_dialogue" }).where(eq(buildReviews.id, review.id));
    return;
  }
  const reviewer = member(context, BUILD_REVIEW_PERSONAS.reviewer);
  const coder = member(context, BUILD_REVIEW_PERSONAS.coder);
  // Structured signals first: the verdict's open questions; then what the review's text says.
  const dialogue = verdict.openQuestions.length
    ? await openDialogue(context.tx, context.emit, {
        roomId: review.roomId,
        correlationId: review.correlationId,
        asker: reviewer,
        addressee: coder,
        topic: verdict.openQuestions.join(" "),
        reason: "open question",
        settings: context.settings,
        buildReviewId: review.id,
        chainDepth: run.chainDepth,
        parentRunId: run.id,
        at: context.at,
      })
    : await openDialogueFromWords(context.tx, context.emit, {
        run,
        text: outcome.text,
        team: context.team,
        settings: context.settings,
        buildReviewId: review.id,
        review: { approves: verdict.verdict === "approve", authorId: coder.id },
        at: context.at,
      });
  if (dialogue) {
    await context.tx.update(buildReviews).set({ status: "in_dialogue" }).where(eq(buildReviews.id, review.id));
    return;
  }
  await decide(context, { ...review, lastVerdict: verdict }, run, []);
}

/**
 * The Coder's ready step brought words addressed to a teammate (how a model without tools
 * asks): its one clarification opens as a dialogue. Returns whether one opened.
 */
async function askedInText(context: Context, review: BuildReview, run: Run, text: string): Promise<boolean> {
  const dialogue = await openDialogueFromWords(context.tx, context.emit, {
    run,
    text,
    team: context.team,
    settings: context.settings,
    buildReviewId: review.id,
    at: context.at,
  });
  if (!dialogue) return false;
  await context.tx.update(buildReviews).set({ status: "in_dialogue", clarified: true }).where(eq(buildReviews.id, review.id));
  return true;
}

/**
 * Consensus: the last verdict approves, lists no blocker or major issue, reviewed the latest
 * version of the code, and no dialogue of the review is open.
 */
export function isConsensus(verdict: ReviewVerdict | null, latestVersion: number, dialogueOpen: boolean): boolean {
  if (!verdict || verdict.verdict !== "approve" || dialogueOpen || verdict.version !== latestVersion) return false;
  return !verdict.issues.some((issue) => issue.severity === "blocker" || issue.severity === "major");
}

/** Consensus, another round, or not approved. */
async function decide(context: Context, review: BuildReview, after: Run, notes: string[]): Promise<void> {
  const verdict = review.lastVerdict;
  const [open] = await context.tx
    .select({ id: dialogues.id })
    .from(dialogues)
    .where(and(eq(dialogues.buildReviewId, review.id), eq(dialogues.status, "open")))
    .limit(1);
  if (isConsensus(verdict, review.codeVersion, !!open)) {
    await closeReview(context, review, "approved", `Approved in round ${review.round}, version ${review.codeVersion}.`);
    return;
  }
  if (review.round >= review.maxRounds) {
    await closeReview(context, review, "not_approved", `No consensus after ${review.maxRounds} round${review.maxRounds === 1 ? "" : "s"}.`);
    return;
  }
  const next = { ...review, round: review.round + 1, status: "coding" as const };
  await context.tx.update(buildReviews).set({ round: next.round, status: "coding" }).where(eq(buildReviews.id, review.id));
  await queueCode(context, next, after, notes);
}

/**
 * A dialogue of a build review closed (in the write that ended its last turn, `run`): the
 * Coder goes on writing, or the Reviewer's verdict is weighed.
 */
export async function afterReviewDialogue(tx: DbOrTx, emit: Emit, dialogue: Dialogue, run: Run, at: Date): Promise<void> {
  if (!dialogue.buildReviewId) return;
  const [review] = await tx.select().from(buildReviews).where(eq(buildReviews.id, dialogue.buildReviewId)).for("update");
  if (!review || FINAL.has(review.status)) return;
  const context = await contextOf(tx, emit, review.roomId, at);
  const coder = member(context, BUILD_REVIEW_PERSONAS.coder);
  const summary = `${dialogue.status === "resolved" ? "Settled" : "Left open"}: ${dialogue.topic}${dialogue.remaining ? ` (still open: ${dialogue.remaining})` : ""}`;
  if (dialogue.askerAgentId === coder.id && review.codeVersion >= review.round) {
    // Asked about the version it had just written: the Reviewer reviews it now.
    await tx.update(buildReviews).set({ status: "reviewing" }).where(eq(buildReviews.id, review.id));
    await queueReview(context, { ...review, status: "reviewing" }, run, [summary]);
    return;
  }
  if (dialogue.askerAgentId === coder.id) {
    const next = { ...review, status: "coding" as const, clarified: true };
    await tx.update(buildReviews).set({ status: "coding", clarified: true }).where(eq(buildReviews.id, review.id));
    await queueCode(context, next, run, [summary]);
    return;
  }
  await tx.update(buildReviews).set({ status: "reviewing" }).where(eq(buildReviews.id, review.id));
  await decide(context, review, run, [summary]);
}

/**
 * Closes a review. Approved, not approved and cancelled are outcomes a review may reach; only a
 * step that failed makes its closing an error.
 */
async function closeReview(
  context: Context,
  review: BuildReview,
  outcome: "approved" | "not_approved" | "cancelled",
  reason: string,
  failed = false,
): Promise<void> {
  const remaining = outcome === "approved" ? [] : (review.lastVerdict?.issues ?? []);
  await context.tx
    .update(buildReviews)
    .set({ status: outcome, outcome: reason, finishedAt: context.at })
    .where(eq(buildReviews.id, review.id));
  context.emit({
    type: "review.closed",
    actor: { id: "system", name: "Build review" },
    correlationId: review.correlationId,
    status: failed ? "error" : "success",
    payload: { reviewId: review.id, outcome, rounds: review.round, remainingIssues: remaining, reason },
  });
}
