// POST /api/rooms/[roomId]/nodes — a participant adds a sticky note
import { seatActor } from "@/lib/auth/seats";
import { createNode } from "@/lib/canvas/create-node";
import { createNodeInputSchema } from "@/lib/canvas/inputs";
import { participantAccess } from "@/lib/http/room-access";
import { idempotencyKey, readJsonBody, respond } from "@/lib/http/request";

export const dynamic = "force-dynamic";

const humanNoteSchema = createNodeInputSchema.omit({ kind: true });

export async function POST(request: Request, { params }: { params: Promise<{ roomId: string }> }) {
  return respond(async () => {
    const { roomId } = await params;
    const { runtime, seat } = await participantAccess(request, roomId);
    const input = await readJsonBody(request, humanNoteSchema);
    const node = await createNode(runtime.database.db, roomId, seatActor(seat), input, {
      idempotencyKey: idempotencyKey(request),
    });
    return Response.json({ node }, { status: 201 });
  });
}
