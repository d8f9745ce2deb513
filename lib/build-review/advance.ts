import { and, eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { type Agent, type BuildReview, type Dialogue, type ReviewVerdict, type Run, agents, buildReviews, canvasNodes, dialogues, rooms } from "@/db/schema";
import { enqueueRun } from "@/lib/agents/enqueue-run";
import { advanceBrainstorm } from "@/lib/brainstorm/advance-brainstorm";
import { detectAddressee, textVerdict } from "@/lib/dialogue/detect";
import type { Actor, Emit } from "@/lib/events/write-room-events";
import { parseRoomSettings } from "@/lib/rooms/room-settings";
import { type TurnOutcome, advanceDialogue, askedTeammate, openDialogue } from "./dialogue";
import { codePrompt, reviewPrompt } from "./prompts";

/** The three personas of a build review. */
export const BUILD_REVIEW_PERSONAS = { architect: "architect", coder: "coder", reviewer: "reviewer" } as const;

const FINAL = new Set(["approved", "not_approved", "cancelled"]);

interface Context {
  tx: DbOrTx;
  emit: Emit;
  at: Date;
  team: Agent[];
}

function member(context: Context, persona: string): Agent {
  const found = context.team.find((agent) => agent.persona === persona);
  if (!found) throw new Error(`A build review needs a ${persona}.`);
  return found;
}

/**
 * Moves a build review, a dialogue or a brainstorm on when one of its runs ends, in the write
 * that ends the run: the next agent's run is queued, a dialogue opened or closed, the review
 * closed (approved, not approved, cancelled), or the brainstorm's stage measured and ended.
 */
export async function advanceWorkflow(tx: DbOrTx, emit: Emit, run: Run, actor: Actor, outcome: TurnOutcome): Promise<void> {
  const purpose = run.purpose;
  if (!purpose) {
    // Any other agent's message that addresses a teammate opens a dialogue with it.
    if (outcome.status === "succeeded" && outcome.text) await dialogueFromWords(tx, emit, run, outcome);
    return;
  }
  if (purpose.kind === "brainstorm") {
    await advanceBrainstorm(tx, emit, run, outcome.at);
    return;
  }
  const team = await tx.select().from(agents).where(eq(agents.roomId, run.roomId));
  const context: Context = { tx, emit, at: outcome.at, team };
  if (purpose.kind === "answer" || purpose.kind === "reply") {
    const closed = await advanceDialogue(tx, emit, run, actor, outcome);
    if (closed?.buildReviewId) await afterDialogue(context, closed, run);
    return;
  }
  const [review] = await tx.select().from(buildReviews).where(eq(buildReviews.id, purpose.buildReviewId)).for("update");
  if (!review || FINAL.has(review.status)) return;
  if (outcome.status !== "succeeded") {
    await closeReview(context, review, outcome.status === "cancelled" ? "cancelled" : "not_approved", `${actor.name}'s run ${outcome.status}.`, outcome.status === "failed");
    return;
  }
  if (purpose.kind === "brief") {
    const brief = outcome.text || "(The Architect wrote no brief.)";
    const next = { ...review, brief, status: "coding" as const };
    await tx.update(buildReviews).set({ brief, status: "coding" }).where(eq(buildReviews.id, review.id));
    await queueCode(context, next, run);
  } else if (purpose.kind === "code") {
    // The Coder asked the Architect first: the review waits for the dialogue.
    if (review.status === "in_dialogue") return;
    if (review.codeVersion < review.round) {
      // No code, but a question in its words (to the Architect, say): the one clarification it may ask.
      if (!review.clarified && (await askedInText(context, review, run, outcome.text))) return;
      await closeReview(context, review, "not_approved", "The Coder wrote no code.");
      return;
    }
    await tx.update(buildReviews).set({ status: "reviewing" }).where(eq(buildReviews.id, review.id));
    await queueReview(context, review, run);
  } else {
    await afterReview(context, review, run, outcome);
  }
}

async function queueCode(context: Context, review: BuildReview, after: Run, notes: string[] = []): Promise<void> {
  const coder = member(context, BUILD_REVIEW_PERSONAS.coder);
  await enqueueRun(context.tx, context.emit, {
    roomId: review.roomId,
    agentId: coder.id,
    trigger: "request",
    requestedBy: { id: "system", name: "Build review" },
    prompt: codePrompt(review, notes),
    parentRunId: after.id,
    chainDepth: after.chainDepth,
    correlationId: review.correlationId,
    purpose: { kind: "code", buildReviewId: review.id },
    at: context.at,
  });
}

async function queueReview(context: Context, review: BuildReview, after: Run): Promise<void> {
  const reviewer = member(context, BUILD_REVIEW_PERSONAS.reviewer);
  const [code] = review.codeNodeId
    ? await context.tx.select({ text: canvasNodes.text }).from(canvasNodes).where(eq(canvasNodes.id, review.codeNodeId))
    : [];
  await enqueueRun(context.tx, context.emit, {
    roomId: review.roomId,
    agentId: reviewer.id,
    trigger: "request",
    requestedBy: { id: "system", name: "Build review" },
    prompt: reviewPrompt(review, code?.text ?? ""),
    parentRunId: after.id,
    chainDepth: after.chainDepth,
    correlationId: review.correlationId,
    selectedNodeIds: review.codeNodeId ? [review.codeNodeId] : [],
    purpose: { kind: "review", buildReviewId: review.id },
    at: context.at,
  });
}

/** The verdict of this round: the one the Reviewer submitted, or the one its text states. */
async function verdictOf(context: Context, review: BuildReview, text: string): Promise<ReviewVerdict> {
  if (review.lastVerdict && review.lastVerdict.version === review.codeVersion && (review.lastVerdict as { round?: number }).round === review.round) {
    return review.lastVerdict;
  }
  const stated = textVerdict(text);
  const verdict: ReviewVerdict & { round: number } = {
    verdict: stated ?? "changes",
    issues: stated ? [] : [{ severity: "major", text: "The review stated no verdict." }],
    openQuestions: [],
    version: review.codeVersion,
    round: review.round,
  };
  await context.tx.update(buildReviews).set({ lastVerdict: verdict }).where(eq(buildReviews.id, review.id));
  context.emit({
    type: "review.verdict",
    actor: member(context, BUILD_REVIEW_PERSONAS.reviewer),
    correlationId: review.correlationId,
    payload: { reviewId: review.id, round: review.round, version: review.codeVersion, verdict: verdict.verdict, issues: verdict.issues, openQuestions: [] },
  });
  return verdict;
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
  const [room] = await context.tx.select({ settings: rooms.settings }).from(rooms).where(eq(rooms.id, review.roomId));
  const settings = parseRoomSettings(room?.settings);
  // Structured signals first: the verdict's open questions; then what the review's text says.
  const question = verdict.openQuestions[0];
  const addressed = question
    ? { addressee: coder, sentence: verdict.openQuestions.join(" "), reason: "open question" }
    : (() => {
        const found = detectAddressee(outcome.text, {
          speaker: reviewer,
          team: context.team,
          review: { approves: verdict.verdict === "approve", authorId: coder.id },
          concernPhrases: settings.concern_phrases,
        });
        return found && { addressee: context.team.find((agent) => agent.id === found.addressee.id)!, sentence: found.sentence, reason: found.reason };
      })();
  if (addressed) {
    const dialogue = await openDialogue(context.tx, context.emit, {
      roomId: review.roomId,
      correlationId: review.correlationId,
      asker: reviewer,
      addressee: addressed.addressee,
      topic: addressed.sentence,
      reason: addressed.reason,
      maxRounds: settings.dialogue_max_rounds,
      buildReviewId: review.id,
      chainDepth: run.chainDepth,
      parentRunId: run.id,
      at: context.at,
    });
    if (dialogue) {
      await context.tx.update(buildReviews).set({ status: "in_dialogue" }).where(eq(buildReviews.id, review.id));
      return;
    }
  }
  await decide(context, { ...review, lastVerdict: verdict }, run, []);
}

/**
 * Opens a dialogue when an agent's message addresses a teammate (see `detectAddressee`):
 * how a model without tools asks its question. Returns whether one opened.
 */
async function askedInText(context: Context, review: BuildReview, run: Run, text: string): Promise<boolean> {
  const speaker = context.team.find((agent) => agent.id === run.agentId);
  if (!speaker || !text) return false;
  const [room] = await context.tx.select({ settings: rooms.settings }).from(rooms).where(eq(rooms.id, review.roomId));
  const settings = parseRoomSettings(room?.settings);
  const found = detectAddressee(text, { speaker, team: context.team, concernPhrases: settings.concern_phrases });
  const addressee = found && context.team.find((agent) => agent.id === found.addressee.id);
  if (!found || !addressee) return false;
  const dialogue = await openDialogue(context.tx, context.emit, {
    roomId: review.roomId,
    correlationId: review.correlationId,
    asker: speaker,
    addressee,
    topic: found.sentence,
    reason: found.reason,
    maxRounds: settings.dialogue_max_rounds,
    buildReviewId: review.id,
    chainDepth: run.chainDepth,
    parentRunId: run.id,
    at: context.at,
  });
  if (!dialogue) return false;
  await context.tx.update(buildReviews).set({ status: "in_dialogue", clarified: true }).where(eq(buildReviews.id, review.id));
  return true;
}

/**
 * Opens a dialogue when a run outside any workflow ends with words addressed to a teammate,
 * unless it put its question with ask_teammate already (the structured signal comes first).
 */
async function dialogueFromWords(tx: DbOrTx, emit: Emit, run: Run, outcome: TurnOutcome): Promise<void> {
  const [room] = await tx.select({ settings: rooms.settings }).from(rooms).where(eq(rooms.id, run.roomId));
  const settings = parseRoomSettings(room?.settings);
  if (settings.dialogue_max_rounds === 0 || (await askedTeammate(tx, run))) return;
  const team = await tx.select().from(agents).where(eq(agents.roomId, run.roomId));
  const speaker = team.find((agent) => agent.id === run.agentId);
  if (!speaker) return;
  const found = detectAddressee(outcome.text, { speaker, team, concernPhrases: settings.concern_phrases });
  const addressee = found && team.find((agent) => agent.id === found.addressee.id);
  if (!found || !addressee) return;
  await openDialogue(tx, emit, {
    roomId: run.roomId,
    correlationId: run.correlationId,
    asker: speaker,
    addressee,
    topic: found.sentence,
    reason: found.reason,
    maxRounds: settings.dialogue_max_rounds,
    buildReviewId: null,
    chainDepth: run.chainDepth,
    parentRunId: run.id,
    at: outcome.at,
  });
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

/** A dialogue of a build review closed: the Coder goes on writing, or the Reviewer's verdict is weighed. */
async function afterDialogue(context: Context, dialogue: Dialogue, run: Run): Promise<void> {
  const [review] = await context.tx.select().from(buildReviews).where(eq(buildReviews.id, dialogue.buildReviewId!)).for("update");
  if (!review || FINAL.has(review.status)) return;
  const coder = member(context, BUILD_REVIEW_PERSONAS.coder);
  const summary = `${dialogue.status === "resolved" ? "Settled" : "Left open"}: ${dialogue.topic}${dialogue.remaining ? ` (still open: ${dialogue.remaining})` : ""}`;
  if (dialogue.askerAgentId === coder.id) {
    const next = { ...review, status: "coding" as const, clarified: true };
    await context.tx.update(buildReviews).set({ status: "coding", clarified: true }).where(eq(buildReviews.id, review.id));
    await queueCode(context, next, run, [summary]);
    return;
  }
  await context.tx.update(buildReviews).set({ status: "reviewing" }).where(eq(buildReviews.id, review.id));
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
