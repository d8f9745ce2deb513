import type { Db, DbOrTx } from "@/db";
import { type Actor, writeRoomEvents } from "@/lib/events/write-room-events";
import type { LimitReachedPayload } from "@/lib/protocol";
import type { RoomSettings } from "@/lib/rooms/room-settings";
import { budgetExceeded, budgetRefusal } from "./budget";
import { limitErrorDetails } from "./limit-reached";

/** Inside a start's write: refuses it (429 until midnight UTC) when a run of `agent` would not fit today's budgets. */
export type CheckBudget = (
  tx: DbOrTx,
  settings: RoomSettings,
  agent: { id: string; roomId: string; name: string; model: string },
  at: Date,
) => Promise<void>;

/**
 * A person's start of agent work — a run, a message that needs one, a brainstorm, a build review —
 * refused up front while the room's or the instance's budget for today is spent, or a run of the
 * agent it starts with is expected to go past it (see `budgetRefusal`). `start` calls the check
 * inside its write, so a refusal writes nothing of the start; the room is then told with a
 * `limit.reached` of its own, as it is told of runs a budget stopped.
 */
export async function refuseOverBudget<T>(
  db: Db,
  roomId: string,
  actor: Actor,
  start: (checkBudget: CheckBudget) => Promise<T>,
): Promise<T> {
  let refused: LimitReachedPayload | null = null;
  try {
    return await start(async (tx, settings, agent, at) => {
      refused = await budgetRefusal(tx, roomId, settings, agent, at);
      if (refused) throw budgetExceeded(refused, at);
    });
  } catch (error) {
    if (refused) await tellRoomOfRefusal(db, roomId, actor, refused);
    throw error;
  }
}

/**
 * The room, its feed and the dashboard's log of it learn that a budget kept a person's start from
 * happening; nothing else is written. A write of its own, after the refused one: best effort, the
 * refusal's answer stands whatever becomes of it.
 */
async function tellRoomOfRefusal(db: Db, roomId: string, actor: Actor, reached: LimitReachedPayload): Promise<void> {
  await writeRoomEvents(db, roomId, async (_tx, emit) => {
    emit({ type: "limit.reached", actor, status: "error", errorDetails: limitErrorDetails(reached), payload: reached });
  }).catch((error: unknown) => console.error("[parley] could not record a budget's refusal:", error));
}
