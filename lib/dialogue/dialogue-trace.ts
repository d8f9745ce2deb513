import { and, eq, inArray, sql } from "drizzle-orm";
import { dialogues } from "@/db/schema";
import type { WorkflowTrace } from "@/lib/agents/workflow-registry";

/**
 * A workflow's dialogues: it stays active while one is open. A dialogue is on the way to the
 * workflow's answer, not its final output, and one left unresolved or stopped is an outcome.
 */
export const dialogueTrace: WorkflowTrace = {
  outcomeEvents: ["dialogue.closed"],
  async parts(db, roomId, correlationIds) {
    const rows = await db
      .select({ correlationId: dialogues.correlationId, open: sql<number>`count(*)::int` })
      .from(dialogues)
      .where(and(eq(dialogues.roomId, roomId), eq(dialogues.status, "open"), inArray(dialogues.correlationId, correlationIds)))
      .groupBy(dialogues.correlationId);
    return new Map(rows.map((row) => [row.correlationId, { open: Number(row.open) }]));
  },
};
