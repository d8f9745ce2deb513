// POST /api/rooms/[roomId]/build-reviews — a participant gives the team a task: brief, code, review (rate-limited per client
// address, refused with a 429 while the day's budget has no room for the Architect's brief, with a 409 while the model of the Architect, the Coder or the Reviewer
// cannot run on this server)
import { startBuildReview, startBuildReviewSchema } from "@/lib/build-review/start-build-review";
import { appRoute, participantRoute } from "@/lib/http/participant-route";
import { rateLimitedUnlessReplayed } from "@/lib/limits/limited-unless-replayed";
import { methodsNotAllowed } from "@/lib/http/method-not-allowed";

export const dynamic = "force-dynamic";

export const POST = rateLimitedUnlessReplayed(
  "runStarts",
  appRoute(
    participantRoute(
      "/api/rooms/[roomId]/build-reviews",
      startBuildReviewSchema,
      async ({ runtime, params, actor, input, idempotencyKey }) => {
        const started = await startBuildReview(runtime.database.db, params.roomId, input.task, actor, {
          idempotencyKey,
          refuseUnrunnable: true,
        });
        return { status: 201, body: { review: started.payload.review, correlationId: started.correlation_id } };
      },
    ),
  ),
);

// Any other method: a 405 in JSON naming these.
export const { GET, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed("POST");
