import { seatActor } from "@/lib/auth/seats";
import { forbidden } from "@/lib/errors";
import { type Actor, ADMIN_ACTOR } from "@/lib/events/write-room-events";
import { limitSeatWrites } from "@/lib/http/participant-route";
import { isAdminRequest, roomAccess } from "@/lib/http/room-access";
import type { Runtime } from "@/lib/runtime";

/**
 * Who may invite outside agents to a room and revoke them: a person with a seat in it (within
 * the seat's rate of writes) or an admin; spectators get a 403, an unknown room a 404.
 */
export async function inviterAccess(
  request: Request,
  roomId: string,
  options: { write: boolean },
): Promise<{ runtime: Runtime; actor: Actor }> {
  const { runtime, seat } = await roomAccess(request, roomId);
  if (seat) {
    if (options.write) await limitSeatWrites(runtime.database.db, seat);
    return { runtime, actor: seatActor(seat) };
  }
  if (await isAdminRequest(request)) return { runtime, actor: ADMIN_ACTOR };
  throw forbidden("Spectators can watch but not invite agents. Take a seat to participate.");
}
