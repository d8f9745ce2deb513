// POST /api/rooms/[roomId]/runs/[runId]/cancel — stop a queued or running agent (participants, within their seat's rate
// of writes, and admins)
import { seatActor } from "@/lib/auth/seats";
import { cancelRunAsAdmin } from "@/lib/admin/admin-run-actions";
import { cancelRun } from "@/lib/agents/cancel-run";
import { forbidden } from "@/lib/errors";
import { limitSeatWrites } from "@/lib/http/participant-route";
import { isAdminRequest, roomAccess } from "@/lib/http/room-access";
import { respond } from "@/lib/http/request";
import { methodsNotAllowed } from "@/lib/http/method-not-allowed";

export const dynamic = "force-dynamic";

export async function POST(request: Request, { params }: { params: Promise<{ roomId: string; runId: string }> }) {
  return respond(async () => {
    const { roomId, runId } = await params;
    const { runtime, seat } = await roomAccess(request, roomId);
    const isAdmin = await isAdminRequest(request);
    if (!seat && !isAdmin) throw forbidden("Only participants and admins can stop an agent.");
    if (seat) await limitSeatWrites(runtime.database.db, seat);
    // An admin's stop is recorded in the room's log and the admin audit trail.
    const outcome = seat
      ? await cancelRun(runtime.database.db, roomId, runId, seatActor(seat))
      : (await cancelRunAsAdmin(runtime.database.db, runId, { roomId })).outcome;
    return Response.json({ runId, outcome });
  }, request);
}

// Any other method: a 405 in JSON naming these.
export const { GET, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed("POST");
