// GET /api/rooms — list rooms; POST /api/rooms — create a room from a template
import { readJsonBody, respond } from "@/lib/http/request";
import { countPresence } from "@/lib/realtime/presence";
import { createRoom, createRoomInputSchema } from "@/lib/rooms/create-room";
import { listRooms } from "@/lib/rooms/list-rooms";
import { getRuntime } from "@/lib/runtime";

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
    const input = await readJsonBody(request, createRoomInputSchema);
    const { database } = await getRuntime();
    const { room, agents } = await createRoom(database.db, input);
    return Response.json({ room: { id: room.id, title: room.title, template: room.template }, agents }, { status: 201 });
  });
}
