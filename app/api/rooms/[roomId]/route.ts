// GET /api/rooms/[roomId] — the room's current state and the sequence number it reflects
import { roomAccess } from "@/lib/http/room-access";
import { respond } from "@/lib/http/request";
import { getRoomSnapshot } from "@/lib/rooms/get-room-snapshot";
import { methodsNotAllowed } from "@/lib/http/method-not-allowed";

export const dynamic = "force-dynamic";

export async function GET(request: Request, { params }: { params: Promise<{ roomId: string }> }) {
  return respond(async () => {
    const { roomId } = await params;
    const { runtime, seat } = await roomAccess(request, roomId);
    const snapshot = await getRoomSnapshot(runtime.database.db, roomId);
    return Response.json({ ...snapshot, seat: seat ? { id: seat.id, displayName: seat.displayName } : null });
  }, request);
}

// Any other method: a 405 in JSON naming these.
export const { POST, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed("GET");
