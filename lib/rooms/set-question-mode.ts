import { eq } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/db";
import { rooms } from "@/db/schema";
import { forbidden, notFound } from "@/lib/errors";
import { type Actor, writeRoomEvents } from "@/lib/events/write-room-events";
import { parseRoomSettings } from "./room-settings";

/** Who answers the questions a room's agents ask the room (`ask_others`): nobody, their teammates, or the people here. */
export const questionModeInputSchema = z.strictObject({
  mode: z.enum(["off", "agents", "human"], { message: 'mode: one of "off", "agents" or "human"' }),
});
export type QuestionMode = z.infer<typeof questionModeInputSchema>["mode"];

/**
 * Switches who answers the agents' questions. Allowed to the room's owner (the seat its creator
 * took) and to an admin with a seat; anyone else is refused (403) and nothing changes.
 */
export async function setQuestionMode(
  db: Db,
  roomId: string,
  mode: QuestionMode,
  by: { seatId: string; admin: boolean; actor: Actor },
): Promise<QuestionMode> {
  await writeRoomEvents(db, roomId, async (tx, emit) => {
    const [room] = await tx.select({ settings: rooms.settings, ownerSeatId: rooms.ownerSeatId }).from(rooms).where(eq(rooms.id, roomId));
    if (!room) throw notFound("Room");
    if (!by.admin && room.ownerSeatId !== by.seatId) {
      throw forbidden("Only the person who created this room, or an admin, chooses who answers its agents' questions.");
    }
    const settings = { ...parseRoomSettings(room.settings), broadcast: mode };
    await tx.update(rooms).set({ settings }).where(eq(rooms.id, roomId));
    emit({ type: "room.updated", actor: by.actor, payload: { settings } });
  });
  return mode;
}
