// GET /api/rooms/[roomId]/log?after=&limit= — the room's events after a sequence number, oldest first, a page at a
// time: what the timeline replays (anyone watching the room may read its log, as its live stream sends it)
import { z } from "zod";
import { readEventsAfter } from "@/lib/events/read-events";
import { roomAccess } from "@/lib/http/room-access";
import { respond } from "@/lib/http/request";
import { methodsNotAllowed } from "@/lib/http/method-not-allowed";
import { parseQuery } from "@/lib/paging/parse-query";
import { findRoom } from "@/lib/rooms/list-rooms";

export const dynamic = "force-dynamic";

const logQuerySchema = z.strictObject({
  after: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(1000).default(500),
});

export async function GET(request: Request, { params }: { params: Promise<{ roomId: string }> }) {
  return respond(async () => {
    const { roomId } = await params;
    const query = parseQuery(logQuerySchema, new URL(request.url).searchParams);
    const { runtime } = await roomAccess(request, roomId);
    const db = runtime.database.db;
    const [events, room] = await Promise.all([readEventsAfter(db, roomId, query.after, query.limit), findRoom(db, roomId)]);
    return Response.json({ events, lastSeq: room?.lastSeq ?? 0 }, { headers: { "cache-control": "no-store" } });
  }, request);
}

// Any other method: a 405 in JSON naming these.
export const { POST, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed("GET");
