import { eq } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/db";
import { rooms } from "@/db/schema";
import { adminActionInsert } from "@/lib/admin/admin-actions";
import { badRequest } from "@/lib/errors";
import { ADMIN_ACTOR, type Actor, writeRoomEvents } from "@/lib/events/write-room-events";
import { LIMITS } from "@/lib/protocol";
import { type RoomSettings, parseRoomSettings, roomSettingsPatchSchema } from "./room-settings";

export const updateRoomInputSchema = z
  .strictObject({
    title: z.string().trim().min(1, "The title cannot be empty").max(LIMITS.roomTitle).optional(),
    settings: roomSettingsPatchSchema.optional(),
  })
  .refine((input) => input.title !== undefined || input.settings !== undefined, "Nothing to change");
export type UpdateRoomInput = z.infer<typeof updateRoomInputSchema>;

/**
 * Renames a room and/or changes its settings (admins). Only what differs from what the room has
 * counts as a change: the audit trail lists each changed setting with its old and new value, and
 * a request that changes nothing (no settings, or the values the room already has) writes
 * nothing at all and returns null.
 */
export async function updateRoom(db: Db, roomId: string, input: UpdateRoomInput, actor: Actor = ADMIN_ACTOR) {
  const { events } = await writeRoomEvents(db, roomId, async (tx, emit, at, defer) => {
    const [room] = await tx.select().from(rooms).where(eq(rooms.id, roomId));
    if (!room) throw badRequest("Room vanished.");
    const before = parseRoomSettings(room.settings);
    const after = input.settings ? parseRoomSettings({ ...room.settings, ...input.settings }) : before;
    const changed = (Object.keys(after) as (keyof RoomSettings)[]).filter(
      (key) => JSON.stringify(before[key]) !== JSON.stringify(after[key]),
    );
    const title = input.title !== undefined && input.title !== room.title ? input.title : undefined;
    if (title === undefined && changed.length === 0) return;
    const settings = changed.length > 0 ? after : undefined;
    await tx
      .update(rooms)
      .set({ ...(title ? { title } : {}), ...(settings ? { settings } : {}) })
      .where(eq(rooms.id, roomId));
    const what = [
      ...(title ? [`renamed “${room.title}” to “${title}”`] : []),
      ...(changed.length ? [`changed ${changed.join(", ")}`] : []),
    ];
    defer(
      adminActionInsert(
        tx,
        {
          action: "room.updated",
          roomId,
          roomTitle: title ?? room.title,
          summary: what.join("; "),
          details: {
            ...(title ? { title: { from: room.title, to: title } } : {}),
            ...(changed.length ? { settings: Object.fromEntries(changed.map((key) => [key, { from: before[key], to: after[key] }])) } : {}),
          },
        },
        at,
        actor,
      ),
    );
    emit({
      type: "room.updated",
      actor,
      payload: { ...(title ? { title } : {}), ...(settings ? { settings } : {}) },
    });
  });
  return events[0] ?? null;
}
