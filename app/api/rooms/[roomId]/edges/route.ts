// POST /api/rooms/[roomId]/edges — a participant connects two notes with a labelled edge
import { createEdgeRoute } from "@/lib/canvas/canvas-routes";

export const dynamic = "force-dynamic";

export async function POST(request: Request, { params }: { params: Promise<{ roomId: string }> }) {
  return createEdgeRoute(request, await params);
}
