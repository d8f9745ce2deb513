// GET /api/rooms/[roomId]/findings?severity=&agent=&before=&limit= — the room's findings, newest first (anyone watching)
import { parseFindingsQuery, readFindings } from "@/lib/findings/read-findings";
import { roomAccess } from "@/lib/http/room-access";
import { respond } from "@/lib/http/request";
import { methodsNotAllowed } from "@/lib/http/method-not-allowed";

export const dynamic = "force-dynamic";

export async function GET(request: Request, { params }: { params: Promise<{ roomId: string }> }) {
  return respond(async () => {
    const { roomId } = await params;
    const query = parseFindingsQuery(new URL(request.url).searchParams);
    const { runtime } = await roomAccess(request, roomId);
    return Response.json({ findings: await readFindings(runtime.database.db, roomId, query) });
  });
}

// Any other method: a 405 in JSON naming these.
export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed("GET");
