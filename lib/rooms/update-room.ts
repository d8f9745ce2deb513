import { eq } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/db";
import { rooms } from "@/db/schema";
import { adminActionInsert } from "@/lib/admin/admin-actions";
import { badRequest } from "@/lib/errors";
import { ADMIN_ACTOR, type Actor, writeRoomEvents } from "@/lib/events/write-room-events";
import { LIMITS } from "@/lib/protocol";
import { parseRoomSettings, roomSettingsPatchSchema } from "./room-settings";

export const updateRoomInputSchema = z
  .strictObject({
    title: z.string().trim().min(1, "The title cannot be empty").max(LIMITS.roomTitle).optional(),
    settings: roomSettingsPatchSchema.optional(),
  })
  .refine((input) => input.title !== undefined || input.settings !== undefined, "Nothing to change");
export type UpdateRoomInput = z.infer<typeof updateRoomInputSchema>;

/** Renames a room and/or changes its settings (admins). */
export async function updateRoom(db: Db, roomId: string, input: UpdateRoomInput, actor: Actor = ADMIN_ACTOR) {
  const { events } = await writeRoomEvents(db, roomId, async (tx, emit, at, defer) => {
    const [room] = await tx.select().from(rooms).where(eq(rooms.id, roomId));
    if (!room) throw badRequest("Room vanished.");
    const settings = input.settings ? parseRoomSettings({ ...room.settings, ...input.settings }) : undefined;
    await tx
      .update(rooms)
      .set({ ...(input.title ? { title: input.title } : {}), ...(settings ? { settings } : {}) })
      .where(eq(rooms.id, roomId));
    const changedSettings = Object.keys(input.settings ?? {});
    const what = [
      ...(input.title ? [`renamed “${room.title}” to “${input.title}”`] : []),
      ...(changedSettings.length ? [`changed ${changedSettings.join(", ")}`] : []),
    ];
    defer(
      adminActionInsert(
        tx,
        {
          action: "room.updated",
          roomId,
          roomTitle: input.title ?? room.title,
          summary: what.join("; "),
          details: {
            ...(input.title ? { title: { from: room.title, to: input.title } } : {}),
            ...(input.settings ? { settings: input.settings } : {}),
          },
        },
        at,
        actor,
      ),
    );
    emit({
      type: "room.updated",
      actor,
      payload: { ...(input.title ? { title: input.title } : {}), ...(settings ? { settings } : {}) },
    });
  });
  return events[0]!;
}
