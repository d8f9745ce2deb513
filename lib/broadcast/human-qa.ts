import { and, asc, desc, eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { type ReusedAnswer, broadcastResponses, broadcasts } from "@/db/schema";
import type { HumanQa } from "@/lib/protocol";

// The answers people in a room gave to its agents' questions.

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

/**
 * The latest answer a person in the room gave to a question with this key (the same question,
 * see same-question.ts), asked by any agent in any run; null when there is none.
 */
export async function findEarlierAnswer(db: DbOrTx, roomId: string, questionKey: string | null): Promise<ReusedAnswer | null> {
  if (!questionKey) return null;
  const [row] = await db
    .select({
      broadcastId: broadcasts.id,
      question: broadcasts.question,
      askedBy: broadcasts.agentName,
      answeredBy: broadcastResponses.responderName,
      answer: broadcastResponses.content,
      answeredAt: broadcastResponses.createdAt,
    })
    .from(broadcasts)
    .innerJoin(broadcastResponses, eq(broadcastResponses.broadcastId, broadcasts.id))
    .where(
      and(
        eq(broadcasts.roomId, roomId),
        eq(broadcasts.mode, "human"),
        eq(broadcasts.status, "complete"),
        eq(broadcasts.questionKey, questionKey),
        eq(broadcastResponses.isHuman, true),
      ),
    )
    .orderBy(desc(broadcastResponses.createdAt))
    .limit(1);
  return row ? { ...row, answeredAt: row.answeredAt.toISOString() } : null;
}
