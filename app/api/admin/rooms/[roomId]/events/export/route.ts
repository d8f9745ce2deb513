// GET /api/admin/rooms/[roomId]/events/export?type=&agent=&correlation_id= — the room's matching events as JSON Lines, streamed (admins)
import { notFound } from "@/lib/errors";
import { eventExportQuerySchema, exportEvents } from "@/lib/events/browse-events";
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
    const query = parseQuery(eventExportQuerySchema, new URL(request.url).searchParams);
    if (!(await findRoom(runtime.database.db, roomId))) throw notFound("Room");
    return new Response(exportEvents(runtime.database.db, roomId, query), {
      headers: {
        "Content-Type": "application/x-ndjson; charset=utf-8",
        "Content-Disposition": `attachment; filename="room-${roomId}-events.jsonl"`,
        "Cache-Control": "no-store",
      },
    });
  }, request);
}

// Any other method: a 405 in JSON naming these.
export const { POST, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed("GET");
