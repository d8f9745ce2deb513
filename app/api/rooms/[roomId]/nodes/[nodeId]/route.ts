// PATCH /api/rooms/[roomId]/nodes/[nodeId] — edit or move a note; DELETE — remove it and its edges
import { seatActor } from "@/lib/auth/seats";
import { deleteNode } from "@/lib/canvas/delete-node";
import { updateNodeInputSchema } from "@/lib/canvas/inputs";
import { updateNode } from "@/lib/canvas/update-node";
import { participantAccess } from "@/lib/http/room-access";
import { idempotencyKey, readJsonBody, respond } from "@/lib/http/request";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ roomId: string; nodeId: string }> };

export async function PATCH(request: Request, { params }: Context) {
  return respond(async () => {
    const { roomId, nodeId } = await params;
    const { runtime, seat } = await participantAccess(request, roomId);
    const changes = await readJsonBody(request, updateNodeInputSchema);
    const update = await updateNode(runtime.database.db, roomId, nodeId, seatActor(seat), changes, {
      idempotencyKey: idempotencyKey(request),
    });
    return Response.json(update);
  });
}

export async function DELETE(request: Request, { params }: Context) {
  return respond(async () => {
    const { roomId, nodeId } = await params;
    const { runtime, seat } = await participantAccess(request, roomId);
    const deleted = await deleteNode(runtime.database.db, roomId, nodeId, seatActor(seat), {
      idempotencyKey: idempotencyKey(request),
    });
    return Response.json(deleted);
  });
}
