// POST /api/rooms/[roomId]/commands — a participant's `@Name message` or `/focus` (spectators: 403; a message that
// starts a run is rate-limited per client address with the other ways of starting agents, and refused with a 429 while
// the day's budget has no room for that run; a message for an agent working alone in a brainstorm's divergent
// thinking, or one that would start a run of an agent whose model cannot run on this server: 409)
import { sendCommand, sendCommandInputSchema } from "@/lib/commands/send-command";
import { appRoute, participantRoute } from "@/lib/http/participant-route";
import { methodsNotAllowed } from "@/lib/http/method-not-allowed";

export const dynamic = "force-dynamic";

export const POST = appRoute(
  participantRoute(
    "/api/rooms/[roomId]/commands",
    sendCommandInputSchema,
    async ({ runtime, params, seat, input, idempotencyKey, clientAddress }) => {
      const result = await sendCommand(runtime.database.db, params.roomId, seat, input.text, {
        idempotencyKey,
        runStartsFrom: clientAddress(),
        refuseUnrunnable: true,
      });
      return { status: result.kind === "message" ? 201 : 200, body: result };
    },
  ),
);

// Any other method: a 405 in JSON naming these.
export const { GET, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed("POST");
