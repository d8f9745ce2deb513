import { eq } from "drizzle-orm";
import { agents, rooms } from "@/db/schema";
import type { RunEnded, WorkflowModule } from "@/lib/agents/workflow-registry";
import { afterReviewDialogue, applyVerdictInReply } from "@/lib/build-review/advance";
import { parseRoomSettings } from "@/lib/rooms/room-settings";
import { advanceDialogue } from "./advance-dialogue";
import { createAskTeammateTool } from "./ask-teammate-tool";
import { dialogueTrace } from "./dialogue-trace";
import { openDialogueFromWords } from "./open-dialogue-from-words";
import { spokenSteps } from "./spoken-steps";

/**
 * A dialogue's turn: the dialogue moves on, a verdict the Reviewer states in its reply is taken,
 * and a build review waiting for the dialogue goes on once it closes.
 */
const dialogueTurnEnded: RunEnded = async (tx, emit, run, actor, outcome) => {
  const closed = await advanceDialogue(tx, emit, run, actor, outcome);
  await applyVerdictInReply(tx, emit, run, outcome);
  if (closed?.buildReviewId) await afterReviewDialogue(tx, emit, closed, run, outcome.at);
};

/**
 * A run that is no workflow's step: what it said in any of its steps may address a teammate,
 * which opens a dialogue — one a run, from the newest step that does. A workflow's steps open
 * no dialogue from their words here: a build review reads every one of its steps' words itself,
 * a dialogue's own turns open none, and neither do a brainstorm's stage runs.
 */
const freeRunEnded: RunEnded = async (tx, emit, run, _actor, outcome) => {
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

/** What dialogues add to the agent engine: ask_teammate, their turns, and the dialogues free runs' words open. */
export const dialogueModule: WorkflowModule = {
  name: "dialogue",
  tools: (active) => ({ tools: createAskTeammateTool(active), only: false }),
  runEnded: { answer: dialogueTurnEnded, reply: dialogueTurnEnded },
  freeRunEnded,
  trace: dialogueTrace,
};
