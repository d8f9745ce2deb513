// POST /api/rooms/[roomId]/presence — count the caller's seat on an event stream they opened before taking it
import { notFound } from "@/lib/errors";
import { appRoute, participantRoute } from "@/lib/http/participant-route";
import { countSeatInputSchema } from "@/lib/realtime/presence";
import { methodsNotAllowed } from "@/lib/http/method-not-allowed";

export const dynamic = "force-dynamic";

export const POST = appRoute(
  participantRoute("/api/rooms/[roomId]/presence", countSeatInputSchema, async ({ runtime, params, seat, input }) => {
    if (!(await runtime.presence.seat(params.roomId, input.connectionId, seat.id))) throw notFound("Open event stream");
    return { status: 200, body: { connectionId: input.connectionId, seatId: seat.id } };
  }),
);

// Any other method: a 405 in JSON naming these.
export const { GET, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed("POST");
