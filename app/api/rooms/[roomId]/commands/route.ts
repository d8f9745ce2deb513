// POST /api/rooms/[roomId]/commands — a participant's `@Name message` or `/focus` (spectators: 403)
import { sendCommand, sendCommandInputSchema } from "@/lib/commands/send-command";
import { appRoute, participantRoute } from "@/lib/http/participant-route";
import { methodsNotAllowed } from "@/lib/http/method-not-allowed";

export const dynamic = "force-dynamic";

export const POST = appRoute(
  participantRoute("/api/rooms/[roomId]/commands", sendCommandInputSchema, async ({ runtime, params, seat, input, idempotencyKey }) => {
    const result = await sendCommand(runtime.database.db, params.roomId, seat, input.text, { idempotencyKey });
    return { status: result.kind === "message" ? 201 : 200, body: result };
  }),
);

// Any other method: a 405 in JSON naming these.
export const { GET, PUT, PATCH, DELETE } = methodsNotAllowed("POST");
