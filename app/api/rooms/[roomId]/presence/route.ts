// POST /api/rooms/[roomId]/presence — count the caller's seat on an event stream they opened before taking it
import { notFound } from "@/lib/errors";
import { readJsonBody, respond } from "@/lib/http/request";
import { participantAccess } from "@/lib/http/room-access";
import { countSeatInputSchema } from "@/lib/realtime/presence";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ roomId: string }> };

export async function POST(request: Request, { params }: Context) {
  return respond(async () => {
    const { roomId } = await params;
    const { runtime, seat } = await participantAccess(request, roomId);
    const { connectionId } = await readJsonBody(request, countSeatInputSchema);
    if (!(await runtime.presence.seat(roomId, connectionId, seat.id))) throw notFound("Open event stream");
    return Response.json({ connectionId, seatId: seat.id });
  });
}
