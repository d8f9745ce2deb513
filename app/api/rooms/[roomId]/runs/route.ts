// POST /api/rooms/[roomId]/runs — a participant starts an agent (the run is queued)
import { seatActor } from "@/lib/auth/seats";
import { startAgentRun, startRunInputSchema } from "@/lib/agents/start-agent-run";
import { participantAccess } from "@/lib/http/room-access";
import { idempotencyKey, readJsonBody, respond } from "@/lib/http/request";

export const dynamic = "force-dynamic";

export async function POST(request: Request, { params }: { params: Promise<{ roomId: string }> }) {
  return respond(async () => {
    const { roomId } = await params;
    const { runtime, seat } = await participantAccess(request, roomId);
    const input = await readJsonBody(request, startRunInputSchema);
    const run = await startAgentRun(runtime.database.db, roomId, input, seatActor(seat), {
      idempotencyKey: idempotencyKey(request),
    });
    return Response.json({ run }, { status: 201 });
  });
}
