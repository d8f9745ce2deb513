// POST /api/rooms/[roomId]/brainstorms/[brainstormId]/gate — decide at the gate: approve, drop, redirect or deepen
// (participants, within their seat's rate of writes, or admins only when the room says so; spectators: 403; a round
// decided already: 409)
import { decideGateAsAdmin } from "@/lib/admin/decide-gate-as-admin";
import { seatActor } from "@/lib/auth/seats";
import { decideGate, gateDecisionInputSchema } from "@/lib/brainstorm/decide-gate";
import { forbidden } from "@/lib/errors";
import { checkIdempotencyKey, readJsonBody, respond } from "@/lib/http/request";
import { limitSeatWrites } from "@/lib/http/participant-route";
import { isAdminRequest, roomAccess } from "@/lib/http/room-access";
import { findRoom } from "@/lib/rooms/list-rooms";
import { parseRoomSettings } from "@/lib/rooms/room-settings";
import { methodsNotAllowed } from "@/lib/http/method-not-allowed";

export const dynamic = "force-dynamic";

export async function POST(request: Request, { params }: { params: Promise<{ roomId: string; brainstormId: string }> }) {
  return respond(async () => {
    const { roomId, brainstormId } = await params;
    const { runtime, seat } = await roomAccess(request, roomId);
    const isAdmin = await isAdminRequest(request);
    const settings = parseRoomSettings((await findRoom(runtime.database.db, roomId))?.settings);
    if (settings.brainstorm_gate === "admins" && !isAdmin) throw forbidden("Only an admin may decide at this room's gate.");
    if (!seat && !isAdmin) throw forbidden("Spectators can watch the gate but not decide. Take a seat to participate.");
    if (seat) await limitSeatWrites(runtime.database.db, seat);
    const idempotencyKey = checkIdempotencyKey(request.headers.get("idempotency-key"));
    const input = await readJsonBody(request, gateDecisionInputSchema);
    // An admin without a seat decides as `admin`, recorded in the audit trail.
    const decided = seat
      ? await decideGate(runtime.database.db, roomId, brainstormId, input, seatActor(seat), { idempotencyKey })
      : await decideGateAsAdmin(runtime.database.db, roomId, brainstormId, input, { idempotencyKey });
    return Response.json({ decision: decided.decision, brainstorm: decided.brainstorm });
  }, request);
}

// Any other method: a 405 in JSON naming these.
export const { GET, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed("POST");
