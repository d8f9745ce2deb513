// GET /api/rooms/[roomId]/asks — who asked whom over the room's whole history, and through which event (anyone watching)
import { roomAccess } from "@/lib/http/room-access";
import { respond } from "@/lib/http/request";
import { countAsks } from "@/lib/rooms/count-asks";
import { methodsNotAllowed } from "@/lib/http/method-not-allowed";

export const dynamic = "force-dynamic";

export async function GET(request: Request, { params }: { params: Promise<{ roomId: string }> }) {
  return respond(async () => {
    const { roomId } = await params;
    const { runtime } = await roomAccess(request, roomId);
    return Response.json(await countAsks(runtime.database.db, roomId));
  }, request);
}

// Any other method: a 405 in JSON naming these.
export const { POST, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed("GET");
