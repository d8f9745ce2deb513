// POST /api/rooms/[roomId]/broadcasts/[broadcastId]/skip — a participant lets the question go unanswered
import { skipHumanQuestion } from "@/lib/broadcast/answer-question";
import { participantAccess } from "@/lib/http/room-access";
import { idempotencyKey, respond } from "@/lib/http/request";

export const dynamic = "force-dynamic";

export async function POST(request: Request, { params }: { params: Promise<{ roomId: string; broadcastId: string }> }) {
  return respond(async () => {
    const { roomId, broadcastId } = await params;
    const { runtime, seat } = await participantAccess(request, roomId);
    await skipHumanQuestion(runtime.database.db, roomId, broadcastId, seat, {
      idempotencyKey: idempotencyKey(request),
    });
    return Response.json({ broadcastId, status: "skipped" });
  });
}
