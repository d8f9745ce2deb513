import { and, asc, eq, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { broadcastResponses, broadcasts, humanQaReads } from "@/db/schema";
import type { HumanQa } from "@/lib/protocol";

export const HUMAN_QA_NOTE =
  "The human has already answered questions in this room. Review the history above: if it answers your " +
  "question, use it directly. If you need different information, call ask_others again with a more specific " +
  "question (the human will be asked).";

/** The room's questions answered by people, oldest first, with when each answer came. */
export async function humanQaHistory(db: DbOrTx, roomId: string): Promise<(HumanQa & { answeredAt: Date })[]> {
  const rows = await db
    .select({ question: broadcasts.question, answer: broadcastResponses.content, answeredAt: broadcastResponses.createdAt })
    .from(broadcastResponses)
    .innerJoin(broadcasts, eq(broadcasts.id, broadcastResponses.broadcastId))
    .where(and(eq(broadcastResponses.roomId, roomId), eq(broadcastResponses.isHuman, true), eq(broadcasts.mode, "human")))
    .orderBy(asc(broadcastResponses.createdAt));
  return rows;
}

/** Whether answers arrived that this agent has not seen yet. */
export async function hasUnseenAnswers(db: DbOrTx, roomId: string, agentId: string): Promise<boolean> {
  const history = await humanQaHistory(db, roomId);
  const latest = history.at(-1)?.answeredAt;
  if (!latest) return false;
  const [read] = await db.select().from(humanQaReads).where(eq(humanQaReads.agentId, agentId));
  return !read || read.seenUntil < latest;
}

/** Records that an agent has seen the room's answers up to `until`. */
export async function markAnswersSeen(db: DbOrTx, roomId: string, agentId: string, until: Date): Promise<void> {
  await db
    .insert(humanQaReads)
    .values({ agentId, roomId, seenUntil: until })
    .onConflictDoUpdate({
      target: humanQaReads.agentId,
      set: { seenUntil: sql`greatest(${humanQaReads.seenUntil}, excluded.seen_until)` },
    });
}
