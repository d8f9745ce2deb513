// PATCH /api/rooms/[roomId]/nodes/[nodeId] — edit or move a note; DELETE — remove it and its edges
import { deleteNodeRoute, updateNodeRoute } from "@/lib/canvas/canvas-routes";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ roomId: string; nodeId: string }> };

export async function PATCH(request: Request, { params }: Context) {
  return updateNodeRoute(request, await params);
}

export async function DELETE(request: Request, { params }: Context) {
  return deleteNodeRoute(request, await params);
}
