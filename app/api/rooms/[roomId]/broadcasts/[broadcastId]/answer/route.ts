// POST /api/rooms/[roomId]/broadcasts/[broadcastId]/answer — a participant answers the agent asking the room
import { answerHumanQuestion, answerInputSchema } from "@/lib/broadcast/answer-question";
import { participantAccess } from "@/lib/http/room-access";
import { idempotencyKey, readJsonBody, respond } from "@/lib/http/request";

export const dynamic = "force-dynamic";

export async function POST(request: Request, { params }: { params: Promise<{ roomId: string; broadcastId: string }> }) {
  return respond(async () => {
    const { roomId, broadcastId } = await params;
    const { runtime, seat } = await participantAccess(request, roomId);
    const { answer } = await readJsonBody(request, answerInputSchema);
    const response = await answerHumanQuestion(runtime.database.db, roomId, broadcastId, seat, answer, {
      idempotencyKey: idempotencyKey(request),
    });
    return Response.json({ response }, { status: 201 });
  });
}
