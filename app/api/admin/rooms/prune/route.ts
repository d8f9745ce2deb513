// POST /api/admin/rooms/prune — delete rooms idle for more than idleDays days, or with dryRun say which (admins)
import { adminAccess } from "@/lib/http/room-access";
import { readJsonBody, respond } from "@/lib/http/request";
import { pruneIdleRooms, pruneRoomsInputSchema } from "@/lib/rooms/prune-rooms";
import { methodsNotAllowed } from "@/lib/http/method-not-allowed";

export const dynamic = "force-dynamic";

export async function POST(request: Request) {
  return respond(async () => {
    const runtime = await adminAccess(request);
    const input = await readJsonBody(request, pruneRoomsInputSchema);
    const result = await pruneIdleRooms(runtime.database, input);
    for (const roomId of result.deletedIds) {
      runtime.seats.forgetRoom(roomId);
      await runtime.bus.publishEphemeral({ type: "room.deleted", room_id: roomId, payload: {} });
    }
    const { deletedIds: _ids, ...answer } = result;
    return Response.json(answer);
  }, request);
}

// Any other method: a 405 in JSON naming these.
export const { GET, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed("POST");
