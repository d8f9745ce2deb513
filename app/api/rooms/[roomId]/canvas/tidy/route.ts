// POST /api/rooms/[roomId]/canvas/tidy — a participant lays the canvas out afresh (spectators: 403)
import { tidyCanvas, tidyCanvasInputSchema } from "@/lib/canvas/tidy-canvas";
import { appRoute, participantRoute } from "@/lib/http/participant-route";
import { methodsNotAllowed } from "@/lib/http/method-not-allowed";

export const dynamic = "force-dynamic";

export const POST = appRoute(
  participantRoute("/api/rooms/[roomId]/canvas/tidy", tidyCanvasInputSchema, async ({ runtime, params, actor, input, idempotencyKey }) => ({
    status: 200,
    body: await tidyCanvas(runtime.database.db, params.roomId, actor, input, { idempotencyKey }),
  })),
);

// Any other method: a 405 in JSON naming these.
export const { GET, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed("POST");
