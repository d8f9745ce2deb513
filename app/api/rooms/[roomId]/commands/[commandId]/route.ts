// DELETE /api/rooms/[roomId]/commands/[commandId] — its sender withdraws a message that has not reached its agent (and the run queued for it alone)
import { cancelCommand } from "@/lib/commands/cancel-command";
import { appRoute, participantRoute } from "@/lib/http/participant-route";
import { methodsNotAllowed } from "@/lib/http/method-not-allowed";

export const dynamic = "force-dynamic";

export const DELETE = appRoute(
  participantRoute("/api/rooms/[roomId]/commands/[commandId]", null, async ({ runtime, params, seat }) => {
    const { cancelledRunId } = await cancelCommand(runtime.database.db, params.roomId, seat, params.commandId);
    return { status: 200, body: { commandId: params.commandId, cancelled: true, cancelledRunId } };
  }),
);

// Any other method: a 405 in JSON naming these.
export const { GET, POST, PUT, PATCH, OPTIONS } = methodsNotAllowed("DELETE");
