// POST /api/rooms/[roomId]/brainstorms — a participant gives the room a problem to brainstorm (rate-limited per client address,
// refused with a 429 while the day's budget has no room for its first run, with a 409 while one of its personas' models cannot
// run on this server)
// GET  /api/rooms/[roomId]/brainstorms — the room's latest brainstorm, where it stands (anyone watching)
import { latestBrainstorm } from "@/lib/brainstorm/brainstorm-dto";
import { startBrainstorm, startBrainstormSchema } from "@/lib/brainstorm/start-brainstorm";
import { appRoute, participantRoute } from "@/lib/http/participant-route";
import { rateLimitedUnlessReplayed } from "@/lib/limits/limited-unless-replayed";
import { respond } from "@/lib/http/request";
import { roomAccess } from "@/lib/http/room-access";
import { findRoom } from "@/lib/rooms/list-rooms";
import { parseRoomSettings } from "@/lib/rooms/room-settings";
import { methodsNotAllowed } from "@/lib/http/method-not-allowed";

export const dynamic = "force-dynamic";

export const POST = rateLimitedUnlessReplayed(
  "runStarts",
  appRoute(
    participantRoute(
      "/api/rooms/[roomId]/brainstorms",
      startBrainstormSchema,
      async ({ runtime, params, actor, input, idempotencyKey }) => ({
        status: 201,
        body: {
          brainstorm: await startBrainstorm(runtime.database.db, params.roomId, input.problem, actor, {
            idempotencyKey,
            refuseUnrunnable: true,
          }),
        },
      }),
    ),
  ),
);

export async function GET(request: Request, { params }: { params: Promise<{ roomId: string }> }) {
  return respond(async () => {
    const { roomId } = await params;
    const { runtime } = await roomAccess(request, roomId);
    const room = await findRoom(runtime.database.db, roomId);
    return Response.json({ brainstorm: await latestBrainstorm(runtime.database.db, roomId, parseRoomSettings(room?.settings)) });
  }, request);
}

// Any other method: a 405 in JSON naming these.
export const { PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed("GET", "POST");
