// POST /api/rooms/[roomId]/forks — continue the room from one of its events in a new room (a seated person, who is
// seated in the new room too, or an admin; counted and limited as creating a room)
import { seatActor, seatCookie } from "@/lib/auth/seats";
import { forbidden } from "@/lib/errors";
import { ADMIN_ACTOR } from "@/lib/events/write-room-events";
import { limitPerAddress } from "@/lib/http/rate-limited";
import { isAdminRequest, roomAccess } from "@/lib/http/room-access";
import { readJsonBody, respond } from "@/lib/http/request";
import { methodsNotAllowed } from "@/lib/http/method-not-allowed";
import { assertMayCreateRooms } from "@/lib/limits/room-creation";
import { forkRoom, forkRoomInputSchema } from "@/lib/rooms/fork-room";

export const dynamic = "force-dynamic";

export async function POST(request: Request, { params }: { params: Promise<{ roomId: string }> }) {
  return respond(async () => {
    const { roomId } = await params;
    const { runtime, seat } = await roomAccess(request, roomId);
    const admin = await isAdminRequest(request);
    if (!seat && !admin) throw forbidden("Take a seat in the room (or sign in as an admin) to continue it in a new room.");
    assertMayCreateRooms(admin, "create rooms");
    await limitPerAddress(runtime.database.db, request, "rooms");
    const input = await readJsonBody(request, forkRoomInputSchema);
    const fork = await forkRoom(
      runtime.database.db,
      roomId,
      input,
      seat ? { kind: "seat", displayName: seat.displayName } : { kind: "admin" },
      { actor: seat ? seatActor(seat) : ADMIN_ACTOR },
    );
    return Response.json(
      { room: fork.room, seat: fork.seat ? { id: fork.seat.id, displayName: fork.seat.displayName } : null },
      { status: 201, headers: fork.seat ? { "Set-Cookie": seatCookie(fork.room.id, fork.seat.token, request.url) } : {} },
    );
  }, request);
}

// Any other method: a 405 in JSON naming these.
export const { GET, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed("POST");
