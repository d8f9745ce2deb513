import { eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { type Run, type RunPurpose, agents, rooms } from "@/db/schema";
import { advanceBrainstorm } from "@/lib/brainstorm/advance-brainstorm";
import { advanceBuildReview, afterReviewDialogue, applyVerdictInReply } from "@/lib/build-review/advance";
import { advanceDialogue } from "@/lib/dialogue/advance-dialogue";
import { openDialogueFromWords } from "@/lib/dialogue/open-dialogue-from-words";
import { spokenSteps } from "@/lib/dialogue/spoken-steps";
import type { Actor, Emit } from "@/lib/events/write-room-events";
import { parseRoomSettings } from "@/lib/rooms/room-settings";
import type { TurnOutcome } from "./turn-outcome";

type Advance = (tx: DbOrTx, emit: Emit, run: Run, actor: Actor, outcome: TurnOutcome) => Promise<void>;

/**
 * A dialogue's turn: the dialogue moves on, a verdict the Reviewer states in its reply is taken,
 * and a build review waiting for the dialogue goes on once it closes.
 */
const advanceDialogueTurn: Advance = async (tx, emit, run, actor, outcome) => {
  const closed = await advanceDialogue(tx, emit, run, actor, outcome);
  await applyVerdictInReply(tx, emit, run, outcome);
  if (closed?.buildReviewId) await afterReviewDialogue(tx, emit, closed, run, outcome.at);
};

/** What moves on when a run of each kind of workflow step ends. */
const BY_PURPOSE: Record<RunPurpose["kind"], Advance> = {
  brief: advanceBuildReview,
  ready: advanceBuildReview,
  code: advanceBuildReview,
  review: advanceBuildReview,
  answer: advanceDialogueTurn,
  reply: advanceDialogueTurn,
  brainstorm: (tx, emit, run, _actor, outcome) => advanceBrainstorm(tx, emit, run, outcome.at),
};

/**
 * A run that is no workflow's step: what it said in any of its steps may address a teammate,
 * which opens a dialogue — one a run, from the newest step that does.
 */
const advanceFreeRun: Advance = async (tx, emit, run, _actor, outcome) => {
  if (outcome.status !== "succeeded") return;
  const [latest, ...earlier] = spokenSteps(run.transcript);
  if (!latest) return;
  const [[room], team] = await Promise.all([
    tx.select({ settings: rooms.settings }).from(rooms).where(eq(rooms.id, run.roomId)),
    tx.select().from(agents).where(eq(agents.roomId, run.roomId)),
  ]);
  await openDialogueFromWords(tx, emit, {
    run,
    text: latest,
    earlierTexts: earlier,
    team,
    settings: parseRoomSettings(room?.settings),
    buildReviewId: null,
    at: outcome.at,
  });
};

/**
 * Moves a run's workflow on when the run ends, in the write that ends it: a build review's next
 * step, a dialogue's next turn or its closing, a brainstorm's stage measured and ended — or,
 * for a run that is no workflow's step, a dialogue its words ask for. A workflow's steps open
 * no dialogue from their words here: a build review reads every one of its steps' words itself
 * (each step decides whether the review waits for the dialogue), a dialogue's own turns open
 * none (a question in them to a third teammate stays in the dialogue), and neither do a
 * brainstorm's stage runs, whose process, not its agents, decides who works when.
 */
export async function advanceWorkflow(tx: DbOrTx, emit: Emit, run: Run, actor: Actor, outcome: TurnOutcome): Promise<void> {
  const advance = run.purpose ? BY_PURPOSE[run.purpose.kind] : advanceFreeRun;
  await advance(tx, emit, run, actor, outcome);
}
