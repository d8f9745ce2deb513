import { and, eq, inArray, sql } from "drizzle-orm";
import { brainstorms } from "@/db/schema";
import type { TracePart, WorkflowTrace } from "@/lib/agents/workflow-registry";

/** A brainstorm still under way: at work in a stage, or waiting at its gate, which never times out, for a person. */
const OPEN_BRAINSTORM_STATUSES: readonly string[] = ["running", "awaiting_gate"];

/**
 * The brainstorm a workflow is: open while under way; its final output is its deliverable
 * (stages that went well are none). A brainstorm a person stopped says so as an error, but a
 * stop is an outcome, not a failure.
 */
export const brainstormTrace: WorkflowTrace = {
  outcomeEvents: ["brainstorm.completed"],
  async parts(db, roomId, correlationIds) {
    const rows = await db
      .select({
        correlationId: brainstorms.correlationId,
        status: brainstorms.status,
        delivered: sql<boolean>`${brainstorms.deliverable} is not null`,
        finishedAt: brainstorms.finishedAt,
      })
      .from(brainstorms)
      .where(and(eq(brainstorms.roomId, roomId), inArray(brainstorms.correlationId, correlationIds)));
    const parts = new Map<string, TracePart>();
    for (const row of rows) {
      const open = (parts.get(row.correlationId)?.open ?? 0) + (OPEN_BRAINSTORM_STATUSES.includes(row.status) ? 1 : 0);
      parts.set(row.correlationId, { open, finalOutput: Boolean(row.delivered), finishedAt: row.finishedAt });
    }
    return parts;
  },
};
