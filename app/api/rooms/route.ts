// GET /api/rooms — list rooms; POST /api/rooms — create a room from a template on a task, its creator seated
// when they give a name (anyone, or admins only: see docs/behaviour/limits.md; rate-limited per client address)
import { limitPerAddress } from "@/lib/http/rate-limited";
import { readJsonBody, respond } from "@/lib/http/request";
import { isAdminRequest } from "@/lib/http/room-access";
import { assertMayCreateRooms } from "@/lib/limits/room-creation";
import { countPresence } from "@/lib/realtime/presence";
import { seatCookie } from "@/lib/auth/seats";
import { createRoomForTask, newRoomInputSchema } from "@/lib/rooms/create-room-for-task";
import { parseRoomSettings } from "@/lib/rooms/room-settings";
import { listRooms } from "@/lib/rooms/list-rooms";
import { getRuntime } from "@/lib/runtime";
import { methodsNotAllowed } from "@/lib/http/method-not-allowed";

export const dynamic = "force-dynamic";

export async function GET(request: Request) {
  return respond(async () => {
    const { database } = await getRuntime();
    const rooms = await listRooms(database.db);
    const watching = await countPresence(
      database,
      rooms.map((room) => room.id),
    );
    return Response.json({ rooms: rooms.map((room) => ({ ...room, watching: watching.get(room.id) ?? 0 })) });
  }, request);
}

export async function POST(request: Request) {
  return respond(async () => {
    const { database } = await getRuntime();
    assertMayCreateRooms(await isAdminRequest(request), "create rooms");
    await limitPerAddress(database.db, request, "rooms");
    const input = await readJsonBody(request, newRoomInputSchema);
    const { room, agents, seat, token, started } = await createRoomForTask(database.db, input);
    return Response.json(
      {
        room: { id: room.id, title: room.title, template: room.template, task: parseRoomSettings(room.settings).task },
        agents,
        seat,
        started,
      },
      { status: 201, headers: token ? { "Set-Cookie": seatCookie(room.id, token, request.url) } : undefined },
    );
  }, request);
}

// Any other method: a 405 in JSON naming these.
export const { PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed("GET", "POST");
