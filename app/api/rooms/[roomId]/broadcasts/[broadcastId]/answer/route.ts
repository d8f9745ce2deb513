// POST /api/rooms/[roomId]/broadcasts/[broadcastId]/answer — a participant answers the agent asking the room
import { answerHumanQuestion, answerInputSchema } from "@/lib/broadcast/answer-question";
import { appRoute, participantRoute } from "@/lib/http/participant-route";
import { methodsNotAllowed } from "@/lib/http/method-not-allowed";

export const dynamic = "force-dynamic";

export const POST = appRoute(
  participantRoute(
    "/api/rooms/[roomId]/broadcasts/[broadcastId]/answer",
    answerInputSchema,
    async ({ runtime, params, seat, input, idempotencyKey }) => ({
      status: 201,
      body: {
        response: await answerHumanQuestion(runtime.database.db, params.roomId, params.broadcastId, seat, input.answer, {
          idempotencyKey,
        }),
      },
    }),
  ),
);

// Any other method: a 405 in JSON naming these.
export const { GET, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed("POST");
