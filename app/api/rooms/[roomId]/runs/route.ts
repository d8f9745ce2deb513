// POST /api/rooms/[roomId]/runs — a participant starts an agent (the run is queued)
import { startAgentRun, startRunInputSchema } from "@/lib/agents/start-agent-run";
import { appRoute, participantRoute } from "@/lib/http/participant-route";

export const dynamic = "force-dynamic";

export const POST = appRoute(
  participantRoute("/api/rooms/[roomId]/runs", startRunInputSchema, async ({ runtime, params, actor, input, idempotencyKey }) => ({
    status: 201,
    body: { run: await startAgentRun(runtime.database.db, params.roomId, input, actor, { idempotencyKey }) },
  })),
);
