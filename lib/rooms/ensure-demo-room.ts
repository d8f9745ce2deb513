import { desc, isNull } from "drizzle-orm";
import type { Db } from "@/db";
import { rooms } from "@/db/schema";
import { createRoom } from "./create-room";
import { CREATIVE_CANVAS } from "./templates";

export const DEMO_ROOM_TITLE = "Rain on the window";

/**
 * The room a new user lands in: the most recently active one (not a replay), or a fresh Creative canvas room
 * whose scheduler is on, so its agents start by themselves once someone opens it (the
 * Songwriter first, then one every interval while anyone is watching).
 */
export async function ensureDemoRoom(db: Db): Promise<{ id: string; created: boolean }> {
  // A replay of a shared file is nobody's working room.
  const [latest] = await db.select({ id: rooms.id }).from(rooms).where(isNull(rooms.replayOf)).orderBy(desc(rooms.lastActivityAt)).limit(1);
  if (latest) return { id: latest.id, created: false };
  const { room } = await createRoom(
    db,
    { title: DEMO_ROOM_TITLE, template: CREATIVE_CANVAS.id },
    {
      settings: {
        task: "Write a song about rain on a city window at night and paint the scene it describes.",
        scheduler_enabled: true,
      },
    },
  );
  return { id: room.id, created: true };
}
