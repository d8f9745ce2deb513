// GET /api/rooms/[roomId]/export — the room's whole log as a room log file (JSON Lines with a digest on every line),
// streamed, for another Parley to replay (POST /api/rooms/replays)
import { notFound } from "@/lib/errors";
import { exportRoomLog } from "@/lib/events/export-room-log";
import { roomAccess } from "@/lib/http/room-access";
import { respond } from "@/lib/http/request";
import { methodsNotAllowed } from "@/lib/http/method-not-allowed";
import { findRoom } from "@/lib/rooms/list-rooms";

export const dynamic = "force-dynamic";

export async function GET(request: Request, { params }: { params: Promise<{ roomId: string }> }) {
  return respond(async () => {
    const { roomId } = await params;
    const { runtime } = await roomAccess(request, roomId);
    const room = await findRoom(runtime.database.db, roomId);
    if (!room) throw notFound("Room");
    const name =
      room.title
        .replace(/[^\w.-]+/g, "-")
        .replace(/^-+|-+$/g, "")
        .slice(0, 60) || "room";
    return new Response(exportRoomLog(runtime.database.db, room), {
      headers: {
        "content-type": "application/x-ndjson; charset=utf-8",
        "content-disposition": `attachment; filename="${name}.parley.jsonl"`,
        "cache-control": "no-store",
      },
    });
  }, request);
}

// Any other method: a 405 in JSON naming these.
export const { POST, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed("GET");
