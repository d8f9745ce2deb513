// GET /api/admin/rooms — every room with its settings (admins)
import { adminAccess } from "@/lib/http/room-access";
import { respond } from "@/lib/http/request";
import { listRoomsForAdmin } from "@/lib/rooms/list-rooms-for-admin";

export const dynamic = "force-dynamic";

export async function GET(request: Request) {
  return respond(async () => {
    const runtime = await adminAccess(request);
    return Response.json({ rooms: await listRoomsForAdmin(runtime.database) });
  });
}
