// GET /api/rooms — list rooms; POST /api/rooms — create a room from a template
// (anyone, or admins only: see docs/behaviour/limits.md; rate-limited per client address)
import { limitPerAddress } from "@/lib/http/rate-limited";
import { readJsonBody, respond } from "@/lib/http/request";
import { isAdminRequest } from "@/lib/http/room-access";
import { assertMayCreateRooms } from "@/lib/limits/room-creation";
import { countPresence } from "@/lib/realtime/presence";
import { createRoom, createRoomInputSchema } from "@/lib/rooms/create-room";
import { listRooms } from "@/lib/rooms/list-rooms";
import { getRuntime } from "@/lib/runtime";
import { methodsNotAllowed } from "@/lib/http/method-not-allowed";

export const dynamic = "force-dynamic";

export async function GET() {
  return respond(async () => {
    const { database } = await getRuntime();
    const rooms = await listRooms(database.db);
    const watching = await countPresence(
      database,
      rooms.map((room) => room.id),
    );
    return Response.json({ rooms: rooms.map((room) => ({ ...room, watching: watching.get(room.id) ?? 0 })) });
  });
}

export async function POST(request: Request) {
  return respond(async () => {
    const { database } = await getRuntime();
    assertMayCreateRooms(await isAdminRequest(request), "create rooms");
    await limitPerAddress(database.db, request, "rooms");
    const input = await readJsonBody(request, createRoomInputSchema);
    const { room, agents } = await createRoom(database.db, input);
    return Response.json({ room: { id: room.id, title: room.title, template: room.template }, agents }, { status: 201 });
  });
}

// Any other method: a 405 in JSON naming these.
export const { PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed("GET", "POST");
