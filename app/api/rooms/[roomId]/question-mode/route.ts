// PUT /api/rooms/[roomId]/question-mode — who answers the agents' questions: nobody, their teammates or the people here
// (the room's owner, or an admin with a seat)
import { seatActor } from "@/lib/auth/seats";
import { limitSeatWrites } from "@/lib/http/participant-route";
import { isAdminRequest, participantAccessByCookie } from "@/lib/http/room-access";
import { readJsonBody, respond } from "@/lib/http/request";
import { methodsNotAllowed } from "@/lib/http/method-not-allowed";
import { questionModeInputSchema, setQuestionMode } from "@/lib/rooms/set-question-mode";

export const dynamic = "force-dynamic";

export async function PUT(request: Request, { params }: { params: Promise<{ roomId: string }> }) {
  return respond(async () => {
    const { roomId } = await params;
    const { runtime, seat } = await participantAccessByCookie(request.headers.get("cookie"), roomId);
    await limitSeatWrites(runtime.database.db, seat);
    const { mode } = await readJsonBody(request, questionModeInputSchema);
    const admin = await isAdminRequest(request);
    return Response.json({
      mode: await setQuestionMode(runtime.database.db, roomId, mode, { seatId: seat.id, admin, actor: seatActor(seat) }),
    });
  }, request);
}

// Any other method: a 405 in JSON naming these.
export const { GET, POST, PATCH, DELETE, OPTIONS } = methodsNotAllowed("PUT");
