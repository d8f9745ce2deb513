// GET /api/admin/rooms?q=&idle_days=&cursor=&limit= — rooms by latest activity, with agents, watchers and settings (admins)
import { adminAccess } from "@/lib/http/room-access";
import { respond } from "@/lib/http/request";
import { adminRoomsQuerySchema, listRoomsForAdmin } from "@/lib/rooms/list-rooms-for-admin";
import { parseQuery } from "@/lib/workflows/read-workflow";
import { methodsNotAllowed } from "@/lib/http/method-not-allowed";

export const dynamic = "force-dynamic";

export async function GET(request: Request) {
  return respond(async () => {
    const runtime = await adminAccess(request);
    const query = parseQuery(adminRoomsQuerySchema, new URL(request.url).searchParams);
    const page = await listRoomsForAdmin(runtime.database, query);
    return Response.json({ rooms: page.items, nextCursor: page.nextCursor });
  }, request);
}

// Any other method: a 405 in JSON naming these.
export const { POST, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed("GET");
