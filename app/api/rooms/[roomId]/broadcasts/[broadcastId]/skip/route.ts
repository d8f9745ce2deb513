// POST /api/rooms/[roomId]/broadcasts/[broadcastId]/skip — a participant lets the question go unanswered
import { skipHumanQuestion } from "@/lib/broadcast/answer-question";
import { appRoute, participantRoute } from "@/lib/http/participant-route";
import { methodsNotAllowed } from "@/lib/http/method-not-allowed";

export const dynamic = "force-dynamic";

export const POST = appRoute(
  participantRoute("/api/rooms/[roomId]/broadcasts/[broadcastId]/skip", null, async ({ runtime, params, seat, idempotencyKey }) => {
    await skipHumanQuestion(runtime.database.db, params.roomId, params.broadcastId, seat, { idempotencyKey });
    return { status: 200, body: { broadcastId: params.broadcastId, status: "skipped" } };
  }),
);

// Any other method: a 405 in JSON naming these.
export const { GET, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed("POST");
