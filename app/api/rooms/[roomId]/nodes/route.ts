// POST /api/rooms/[roomId]/nodes — a participant adds a sticky note
import { createNoteRoute } from "@/lib/canvas/canvas-routes";

export const dynamic = "force-dynamic";

export async function POST(request: Request, { params }: { params: Promise<{ roomId: string }> }) {
  return createNoteRoute(request, await params);
}
