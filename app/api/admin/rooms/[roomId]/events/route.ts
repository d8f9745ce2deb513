// GET /api/admin/rooms/[roomId]/events?type=&agent=&correlation_id=&before=&limit= — the room's event log, newest first (admins)
import { notFound } from "@/lib/errors";
import { browseEvents, eventLogQuerySchema } from "@/lib/events/browse-events";
import { adminAccess } from "@/lib/http/room-access";
import { respond } from "@/lib/http/request";
import { findRoom } from "@/lib/rooms/list-rooms";
import { parseQuery } from "@/lib/workflows/read-workflow";
import { methodsNotAllowed } from "@/lib/http/method-not-allowed";

export const dynamic = "force-dynamic";

export async function GET(request: Request, { params }: { params: Promise<{ roomId: string }> }) {
  return respond(async () => {
    const runtime = await adminAccess(request);
    const { roomId } = await params;
    const query = parseQuery(eventLogQuerySchema, new URL(request.url).searchParams);
    if (!(await findRoom(runtime.database.db, roomId))) throw notFound("Room");
    return Response.json(await browseEvents(runtime.database.db, roomId, query));
  }, request);
}

// Any other method: a 405 in JSON naming these.
export const { POST, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed("GET");
