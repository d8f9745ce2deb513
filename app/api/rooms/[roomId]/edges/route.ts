// POST /api/rooms/[roomId]/edges — a participant connects two notes with a labelled edge
import { seatActor } from "@/lib/auth/seats";
import { createEdge } from "@/lib/canvas/edges";
import { createEdgeInputSchema } from "@/lib/canvas/inputs";
import { participantAccess } from "@/lib/http/room-access";
import { idempotencyKey, readJsonBody, respond } from "@/lib/http/request";

export const dynamic = "force-dynamic";

export async function POST(request: Request, { params }: { params: Promise<{ roomId: string }> }) {
  return respond(async () => {
    const { roomId } = await params;
    const { runtime, seat } = await participantAccess(request, roomId);
    const input = await readJsonBody(request, createEdgeInputSchema);
    const edge = await createEdge(runtime.database.db, roomId, seatActor(seat), input, {
      idempotencyKey: idempotencyKey(request),
    });
    return Response.json({ edge }, { status: 201 });
  });
}
