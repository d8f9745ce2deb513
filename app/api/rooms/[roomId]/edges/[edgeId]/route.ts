// PATCH /api/rooms/[roomId]/edges/[edgeId] — relabel an edge; DELETE — remove it
import { seatActor } from "@/lib/auth/seats";
import { deleteEdge, updateEdge } from "@/lib/canvas/edges";
import { updateEdgeInputSchema } from "@/lib/canvas/inputs";
import { participantAccess } from "@/lib/http/room-access";
import { idempotencyKey, readJsonBody, respond } from "@/lib/http/request";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ roomId: string; edgeId: string }> };

export async function PATCH(request: Request, { params }: Context) {
  return respond(async () => {
    const { roomId, edgeId } = await params;
    const { runtime, seat } = await participantAccess(request, roomId);
    const input = await readJsonBody(request, updateEdgeInputSchema);
    const update = await updateEdge(runtime.database.db, roomId, edgeId, seatActor(seat), input, {
      idempotencyKey: idempotencyKey(request),
    });
    return Response.json(update);
  });
}

export async function DELETE(request: Request, { params }: Context) {
  return respond(async () => {
    const { roomId, edgeId } = await params;
    const { runtime, seat } = await participantAccess(request, roomId);
    const deleted = await deleteEdge(runtime.database.db, roomId, edgeId, seatActor(seat), {
      idempotencyKey: idempotencyKey(request),
    });
    return Response.json(deleted);
  });
}
