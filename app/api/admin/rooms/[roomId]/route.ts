// GET /api/admin/rooms/[roomId] — one room with its agents, settings and runs; PATCH — rename it or change its settings; DELETE — delete it (admins)
import { notFound } from "@/lib/errors";
import { adminAccess } from "@/lib/http/room-access";
import { readJsonBody, respond } from "@/lib/http/request";
import { deleteRoom } from "@/lib/rooms/delete-room";
import { findRoom } from "@/lib/rooms/list-rooms";
import { readRoomForAdmin } from "@/lib/rooms/list-rooms-for-admin";
import { updateRoom, updateRoomInputSchema } from "@/lib/rooms/update-room";
import { methodsNotAllowed } from "@/lib/http/method-not-allowed";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ roomId: string }> };

export async function GET(request: Request, { params }: Context) {
  return respond(async () => {
    const runtime = await adminAccess(request);
    const { roomId } = await params;
    return Response.json({ room: await readRoomForAdmin(runtime.database, roomId) });
  }, request);
}

export async function PATCH(request: Request, { params }: Context) {
  return respond(async () => {
    const { roomId } = await params;
    const runtime = await adminAccess(request);
    if (!(await findRoom(runtime.database.db, roomId))) throw notFound("Room");
    const input = await readJsonBody(request, updateRoomInputSchema);
    const event = await updateRoom(runtime.database.db, roomId, input);
    return Response.json({ event });
  }, request);
}

export async function DELETE(request: Request, { params }: Context) {
  return respond(async () => {
    const { roomId } = await params;
    const runtime = await adminAccess(request);
    await deleteRoom(runtime.database.db, roomId);
    runtime.seats.forgetRoom(roomId);
    await runtime.bus.publishEphemeral({ type: "room.deleted", room_id: roomId, payload: {} });
    return new Response(null, { status: 204 });
  }, request);
}

// Any other method: a 405 in JSON naming these.
export const { POST, PUT, OPTIONS } = methodsNotAllowed("GET", "PATCH", "DELETE");
