// PATCH /api/rooms/[roomId]/edges/[edgeId] — relabel an edge; DELETE — remove it
import { deleteEdgeRoute, updateEdgeRoute } from "@/lib/canvas/canvas-routes";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ roomId: string; edgeId: string }> };

export async function PATCH(request: Request, { params }: Context) {
  return updateEdgeRoute(request, await params);
}

export async function DELETE(request: Request, { params }: Context) {
  return deleteEdgeRoute(request, await params);
}
