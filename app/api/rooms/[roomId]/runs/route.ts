// POST /api/rooms/[roomId]/runs — a participant starts an agent (the run is queued; rate-limited per client address,
// refused while the day's budget is spent, and with a 409 while the agent works alone in a brainstorm's divergent
// thinking, or whose model cannot run on this server)
import { startAgentRun, startRunInputSchema } from "@/lib/agents/start-agent-run";
import { appRoute, participantRoute } from "@/lib/http/participant-route";
import { rateLimitedUnlessReplayed } from "@/lib/limits/limited-unless-replayed";
import { methodsNotAllowed } from "@/lib/http/method-not-allowed";

export const dynamic = "force-dynamic";

export const POST = rateLimitedUnlessReplayed(
  "runStarts",
  appRoute(
    participantRoute("/api/rooms/[roomId]/runs", startRunInputSchema, async ({ runtime, params, actor, input, idempotencyKey }) => ({
      status: 201,
      body: { run: await startAgentRun(runtime.database.db, params.roomId, input, actor, { idempotencyKey, refuseUnrunnable: true }) },
    })),
  ),
);

// Any other method: a 405 in JSON naming these.
export const { GET, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed("POST");
