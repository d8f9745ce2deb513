import { and, eq, inArray, sql } from "drizzle-orm";
import { buildReviews } from "@/db/schema";
import type { TracePart, WorkflowTrace } from "@/lib/agents/workflow-registry";

const FINAL_REVIEW_STATUSES: readonly string[] = ["approved", "not_approved", "cancelled"];

/**
 * The build review a workflow is: open until it closes; its final output is the Reviewer's
 * verdict on the Coder's code, approved or not (a brief written is no reviewed code).
 */
export const reviewTrace: WorkflowTrace = {
  outcomeEvents: ["review.closed"],
  async parts(db, roomId, correlationIds) {
    const rows = await db
      .select({
        correlationId: buildReviews.correlationId,
        status: buildReviews.status,
        verdict: sql<boolean>`${buildReviews.lastVerdict} is not null`,
        finishedAt: buildReviews.finishedAt,
      })
      .from(buildReviews)
      .where(and(eq(buildReviews.roomId, roomId), inArray(buildReviews.correlationId, correlationIds)));
    const parts = new Map<string, TracePart>();
    for (const row of rows) {
      const open = (parts.get(row.correlationId)?.open ?? 0) + (FINAL_REVIEW_STATUSES.includes(row.status) ? 0 : 1);
      parts.set(row.correlationId, { open, finalOutput: Boolean(row.verdict), finishedAt: row.finishedAt });
    }
    return parts;
  },
};
