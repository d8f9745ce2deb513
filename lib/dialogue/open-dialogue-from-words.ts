import type { DbOrTx } from "@/db";
import type { Agent, Dialogue, Run } from "@/db/schema";
import type { Emit } from "@/lib/events/write-room-events";
import { isolatedAgentIds } from "@/lib/brainstorm/stage-context";
import { emitLimitReached } from "@/lib/limits/limit-reached";
import { repeatedDialogue } from "@/lib/limits/repeated-exchanges";
import type { RoomSettings } from "@/lib/rooms/room-settings";
import { type Addressed, detectAddressee } from "./detect";
import { askedTeammate, openDialogue } from "./open-dialogue";

/**
 * Opens a dialogue when what `run` said addresses a teammate (see `detectAddressee`): how a
 * model without tools asks. `text` is read first, then `earlierTexts` in turn; the first that
 * addresses a teammate opens the one dialogue. Nothing opens when the run put a question with
 * ask_teammate already (the structured signal comes first) or when dialogues are off; and an
 * agent working alone in a brainstorm's divergent stage neither opens a dialogue nor is drawn
 * into one, so "Wild Ideator, …?" from a teammate leaves the ideator alone. A dialogue that
 * would be the workflow's `repeated_exchange_limit`-th saying much the same between the two
 * (the loop guard every other way of asking keeps to) does not open: the room gets a
 * `limit.reached` saying why instead. Returns the dialogue, or null.
 */
export async function openDialogueFromWords(
  tx: DbOrTx,
  emit: Emit,
  input: {
    run: Run;
    text: string;
    /** What the run said before `text` (its earlier steps' words), newest first. */
    earlierTexts?: string[];
    team: Agent[];
    settings: RoomSettings;
    /** The build review the dialogue belongs to; null for a dialogue of its own. */
    buildReviewId: string | null;
    /** When the words are a review: its verdict, and whose work it reviews (for concern phrases). */
    review?: { approves: boolean; authorId: string };
    at: Date;
  },
): Promise<Dialogue | null> {
  const { run, settings } = input;
  const said = [input.text, ...(input.earlierTexts ?? [])].filter((text) => text.trim());
  if (said.length === 0 || settings.dialogue_max_rounds === 0) return null;
  const alone = await isolatedAgentIds(tx, run.roomId);
  if (alone.has(run.agentId)) return null;
  const team = input.team.filter((member) => !alone.has(member.id));
  const speaker = team.find((member) => member.id === run.agentId);
  if (!speaker || (await askedTeammate(tx, run))) return null;
  let found: Addressed | null = null;
  for (const text of said) {
    found = detectAddressee(text, { speaker, team, review: input.review, concernPhrases: settings.concern_phrases });
    if (found) break;
  }
  const addressee = found && team.find((member) => member.id === found.addressee.id);
  if (!found || !addressee) return null;
  const repeated = await repeatedDialogue(tx, run, speaker, addressee, found.sentence, settings.repeated_exchange_limit);
  if (repeated) {
    emitLimitReached(emit, speaker, run.correlationId, repeated);
    return null;
  }
  return openDialogue(tx, emit, {
    roomId: run.roomId,
    correlationId: run.correlationId,
    asker: speaker,
    addressee,
    topic: found.sentence,
    reason: found.reason,
    settings,
    buildReviewId: input.buildReviewId,
    chainDepth: run.chainDepth,
    parentRunId: run.id,
    at: input.at,
  });
}
