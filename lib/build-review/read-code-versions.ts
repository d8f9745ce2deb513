import { and, asc, eq, inArray } from "drizzle-orm";
import type { Db } from "@/db";
import { buildReviews, events } from "@/db/schema";
import { notFound } from "@/lib/errors";
import { eventFromRow } from "@/lib/events/event-row";

/** One version of a build review's code, as the Coder submitted it. */
export interface CodeVersion {
  version: number;
  language: string;
  code: string;
  submittedAt: string;
  /** Who submitted it (the Coder). */
  authorName: string;
}

export interface CodeHistory {
  reviewId: string;
  nodeId: string | null;
  /** Oldest first. */
  versions: CodeVersion[];
}

/**
 * Every version of a review's code, read from its workflow's event log: each `review.code`
 * event carries its version's code. Events written before they carried it are paired with the
 * node write that followed them in the same change. Later edits of the node by others, and
 * moves, are not versions.
 */
export async function readCodeVersions(db: Db, roomId: string, reviewId: string): Promise<CodeHistory> {
  const [review] = await db
    .select({ correlationId: buildReviews.correlationId, codeNodeId: buildReviews.codeNodeId })
    .from(buildReviews)
    .where(and(eq(buildReviews.id, reviewId), eq(buildReviews.roomId, roomId)));
  if (!review) throw notFound(`Build review ${reviewId}`);
  const rows = await db
    .select()
    .from(events)
    .where(
      and(
        eq(events.roomId, roomId),
        eq(events.correlationId, review.correlationId),
        inArray(events.type, ["review.code", "node.created", "node.updated"]),
      ),
    )
    .orderBy(asc(events.seq));
  const versions: CodeVersion[] = [];
  let announced: { version: number; language: string; nodeId: string } | null = null;
  for (const event of rows.map(eventFromRow)) {
    if (event.type === "review.code" && event.payload.reviewId === reviewId) {
      const { version, language, nodeId, code } = event.payload;
      if (code !== undefined) {
        versions.push({ version, language, code, submittedAt: event.timestamp, authorName: event.agent_name });
        announced = null;
      } else {
        announced = { version, language, nodeId };
      }
      continue;
    }
    if (!announced) continue;
    const text =
      event.type === "node.created" && event.payload.node.id === announced.nodeId
        ? event.payload.node.text
        : event.type === "node.updated" && event.payload.nodeId === announced.nodeId
          ? event.payload.changes.text
          : undefined;
    if (text === undefined) continue;
    versions.push({
      version: announced.version,
      language: announced.language,
      code: text,
      submittedAt: event.timestamp,
      authorName: event.agent_name,
    });
    announced = null;
  }
  return { reviewId, nodeId: review.codeNodeId, versions };
}
