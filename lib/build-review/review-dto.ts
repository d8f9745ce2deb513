import { and, desc, eq, notInArray } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { type BuildReview, buildReviews } from "@/db/schema";
import type { BuildReviewDto } from "@/lib/protocol";

const FINAL = ["approved", "not_approved", "cancelled"] as const;

/** A build review as the page shows it, from its row: the same as its events, replayed, would show. */
function reviewToDto(review: BuildReview): BuildReviewDto {
  const verdict = review.lastVerdict;
  const outcome = FINAL.find((status) => status === review.status);
  return {
    id: review.id,
    task: review.task,
    maxRounds: review.maxRounds,
    round: review.round,
    version: review.codeVersion,
    verdict: verdict && {
      reviewId: review.id,
      round: verdict.round,
      version: verdict.version,
      verdict: verdict.verdict,
      issues: verdict.issues,
      openQuestions: verdict.openQuestions,
    },
    closed: outcome
      ? {
          reviewId: review.id,
          outcome,
          rounds: review.round,
          remainingIssues: outcome === "approved" ? [] : (verdict?.issues ?? []),
          reason: review.outcome ?? "",
        }
      : null,
  };
}

/**
 * The build reviews the page shows, oldest first (the latest last): every one still under way
 * and the room's latest, however long ago they started.
 */
export async function reviewsInView(tx: DbOrTx, roomId: string): Promise<BuildReviewDto[]> {
  const [open, [latest]] = await Promise.all([
    tx
      .select()
      .from(buildReviews)
      .where(and(eq(buildReviews.roomId, roomId), notInArray(buildReviews.status, [...FINAL]))),
    tx.select().from(buildReviews).where(eq(buildReviews.roomId, roomId)).orderBy(desc(buildReviews.createdAt)).limit(1),
  ]);
  const shown = new Map([...open, ...(latest ? [latest] : [])].map((review) => [review.id, review]));
  const last = (review: BuildReview) => (review.id === latest?.id ? 1 : 0);
  return [...shown.values()].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || last(a) - last(b)).map(reviewToDto);
}
