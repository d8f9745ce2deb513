// POST /api/rooms/[roomId]/nodes — a participant adds a sticky note
import { createNoteRoute } from "@/lib/canvas/canvas-routes";
import { pagesRoutes } from "@/lib/http/participant-route";

// The route reads its own body (within the size limit) and answers every request itself.
export const config = { api: { bodyParser: false, externalResolver: true } };

export default pagesRoutes({ POST: createNoteRoute });
