// GET /api/rooms/[roomId]/timeline — what the room's timeline marks (runs, questions, dialogues, decisions, people's
// edits), the room it continues and the rooms continued from it, and whether it is a replay of a shared file
import { roomAccess } from "@/lib/http/room-access";
import { respond } from "@/lib/http/request";
import { methodsNotAllowed } from "@/lib/http/method-not-allowed";
import { readTimeline } from "@/lib/timeline/read-timeline";

export const dynamic = "force-dynamic";

export async function GET(request: Request, { params }: { params: Promise<{ roomId: string }> }) {
  return respond(async () => {
    const { roomId } = await params;
    const { runtime } = await roomAccess(request, roomId);
    return Response.json(await readTimeline(runtime.database.db, roomId), { headers: { "cache-control": "no-store" } });
  }, request);
}

// Any other method: a 405 in JSON naming these.
export const { POST, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed("GET");
