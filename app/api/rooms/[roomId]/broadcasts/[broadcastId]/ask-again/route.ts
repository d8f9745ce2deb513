// POST /api/rooms/[roomId]/broadcasts/[broadcastId]/ask-again — a participant puts a question given an earlier answer to the room
import { askAgain } from "@/lib/broadcast/ask-again";
import { appRoute, participantRoute } from "@/lib/http/participant-route";
import { methodsNotAllowed } from "@/lib/http/method-not-allowed";

export const dynamic = "force-dynamic";

export const POST = appRoute(
  participantRoute("/api/rooms/[roomId]/broadcasts/[broadcastId]/ask-again", null, async ({ runtime, params, seat, idempotencyKey }) => ({
    status: 201,
    body: { broadcast: await askAgain(runtime.database.db, params.roomId, params.broadcastId, seat, { idempotencyKey }) },
  })),
);

// Any other method: a 405 in JSON naming these.
export const { GET, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed("POST");
