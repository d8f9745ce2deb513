// GET /api/rooms/[roomId]/build-reviews/[reviewId]/code — every version of a review's code, oldest first
import { readCodeVersions } from "@/lib/build-review/read-code-versions";
import { roomAccess } from "@/lib/http/room-access";
import { respond } from "@/lib/http/request";
import { methodsNotAllowed } from "@/lib/http/method-not-allowed";

export const dynamic = "force-dynamic";

export async function GET(request: Request, { params }: { params: Promise<{ roomId: string; reviewId: string }> }) {
  return respond(async () => {
    const { roomId, reviewId } = await params;
    const { runtime } = await roomAccess(request, roomId);
    return Response.json({ code: await readCodeVersions(runtime.database.db, roomId, reviewId) });
  }, request);
}

// Any other method: a 405 in JSON naming these.
export const { POST, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed("GET");
