// PATCH /api/rooms/[roomId]/edges/[edgeId] — relabel an edge; DELETE — remove it
import { deleteEdgeRoute, updateEdgeRoute } from "@/lib/canvas/canvas-routes";
import { pagesRoutes } from "@/lib/http/participant-route";

// The route reads its own body (within the size limit) and answers every request itself.
export const config = { api: { bodyParser: false, externalResolver: true } };

export default pagesRoutes({ PATCH: updateEdgeRoute, DELETE: deleteEdgeRoute });
