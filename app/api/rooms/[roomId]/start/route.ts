// POST /api/rooms/[roomId]/start — a participant sets the room's team to work on the room's task (once; rate-limited
// per client address as starting a run is; 409 while an agent it would set to work cannot run on this server)
import { appRoute, participantRoute } from "@/lib/http/participant-route";
import { rateLimitedPerAddress } from "@/lib/http/rate-limited";
import { methodsNotAllowed } from "@/lib/http/method-not-allowed";
import { startTeam } from "@/lib/rooms/start-team";

export const dynamic = "force-dynamic";

export const POST = rateLimitedPerAddress(
  "runStarts",
  appRoute(
    participantRoute("/api/rooms/[roomId]/start", null, async ({ runtime, params, actor }) => ({
      status: 201,
      body: { started: await startTeam(runtime.database.db, params.roomId, actor, { refuseUnrunnable: true }) },
    })),
  ),
);

// Any other method: a 405 in JSON naming these.
export const { GET, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed("POST");
