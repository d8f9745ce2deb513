// PATCH /api/rooms/[roomId]/nodes/[nodeId] — edit or move a note; DELETE — remove it and its edges
import { deleteNodeRoute, updateNodeRoute } from "@/lib/canvas/canvas-routes";
import { pagesRoutes } from "@/lib/http/participant-route";

// The route reads its own body (within the size limit) and answers every request itself.
export const config = { api: { bodyParser: false, externalResolver: true } };

export default pagesRoutes({ PATCH: updateNodeRoute, DELETE: deleteNodeRoute });
