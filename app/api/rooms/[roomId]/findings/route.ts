// GET /api/rooms/[roomId]/findings?severity=&agent=&cursor=&before=&limit= — the room's findings, newest first, a page at a time (anyone watching)
import { findingsQuerySchema, readFindings } from "@/lib/findings/read-findings";
import { parseQuery } from "@/lib/paging/parse-query";
import { roomAccess } from "@/lib/http/room-access";
import { respond } from "@/lib/http/request";
import { methodsNotAllowed } from "@/lib/http/method-not-allowed";

export const dynamic = "force-dynamic";

export async function GET(request: Request, { params }: { params: Promise<{ roomId: string }> }) {
  return respond(async () => {
    const { roomId } = await params;
    const query = parseQuery(findingsQuerySchema, new URL(request.url).searchParams);
    const { runtime } = await roomAccess(request, roomId);
    return Response.json(await readFindings(runtime.database.db, roomId, query));
  }, request);
}

// Any other method: a 405 in JSON naming these.
export const { POST, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed("GET");
