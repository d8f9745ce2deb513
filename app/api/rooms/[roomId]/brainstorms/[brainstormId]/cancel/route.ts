// POST /api/rooms/[roomId]/brainstorms/[brainstormId]/cancel — stop a brainstorm wherever it is (participants; spectators: 403)
import { cancelBrainstorm } from "@/lib/brainstorm/cancel-brainstorm";
import { methodsNotAllowed } from "@/lib/http/method-not-allowed";
import { appRoute, participantRoute } from "@/lib/http/participant-route";

export const dynamic = "force-dynamic";

export const POST = appRoute(
  participantRoute("/api/rooms/[roomId]/brainstorms/[brainstormId]/cancel", null, async ({ runtime, params, actor, idempotencyKey }) => ({
    status: 200,
    body: {
      brainstorm: (await cancelBrainstorm(runtime.database.db, params.roomId, params.brainstormId, actor, { idempotencyKey })).brainstorm,
    },
  })),
);

// Any other method: a 405 in JSON naming these.
export const { GET, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed("POST");
