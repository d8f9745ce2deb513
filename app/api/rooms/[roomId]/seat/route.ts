// POST /api/rooms/[roomId]/seat — take a seat with a display name (rate-limited per client address); GET — who am I in this room
import { seatCookie, seatCookieName, takeSeat, takeSeatInputSchema } from "@/lib/auth/seats";
import { limitPerAddress } from "@/lib/http/rate-limited";
import { roomAccess } from "@/lib/http/room-access";
import { idempotencyKey, parseCookies, readJsonBody, respond } from "@/lib/http/request";
import { methodsNotAllowed } from "@/lib/http/method-not-allowed";
import { refuseReplay } from "@/lib/rooms/import-replay";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ roomId: string }> };

export async function GET(request: Request, { params }: Context) {
  return respond(async () => {
    const { roomId } = await params;
    const { seat } = await roomAccess(request, roomId);
    return Response.json({ seat: seat ? { id: seat.id, displayName: seat.displayName } : null });
  }, request);
}

export async function POST(request: Request, { params }: Context) {
  return respond(async () => {
    const { roomId } = await params;
    const { runtime } = await roomAccess(request, roomId);
    await refuseReplay(runtime.database.db, roomId);
    await limitPerAddress(runtime.database.db, request, "seats");
    const input = await readJsonBody(request, takeSeatInputSchema);
    const { seat, token } = await takeSeat(runtime.database.db, roomId, input, {
      idempotencyKey: idempotencyKey(request),
      heldToken: parseCookies(request.headers.get("cookie"))[seatCookieName(roomId)],
    });
    return Response.json({ seat }, { status: 201, headers: { "Set-Cookie": seatCookie(roomId, token, request.url) } });
  }, request);
}

// Any other method: a 405 in JSON naming these.
export const { PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed("GET", "POST");
