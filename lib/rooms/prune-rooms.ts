import { and, asc, gt, inArray, lt, notExists, sql } from "drizzle-orm";
import { z } from "zod";
import type { Database } from "@/db";
import { presence, rooms, runs } from "@/db/schema";
import { adminActionInsert } from "@/lib/admin/admin-actions";

const DAY = 24 * 3_600_000;
/** A live connection not refreshed for this long no longer counts as someone watching (as `countPresence`). */
const PRESENCE_STALE_MS = 45_000;
/** Rooms a preview names; the count covers them all. */
const PREVIEW_ROOMS = 20;

export const pruneRoomsInputSchema = z.strictObject({
  /** Rooms with no activity for more than this many days are deleted. */
  idleDays: z.number().int().min(1, "idleDays must be at least 1").max(3650, "idleDays must be at most 3650"),
  /** Only say what would be deleted. */
  dryRun: z.boolean().default(false),
});
export type PruneRoomsInput = z.infer<typeof pruneRoomsInputSchema>;

export interface PruneResult {
  idleDays: number;
  /** Rooms last active before this were pruned (or would be). */
  cutoff: string;
  dryRun: boolean;
  count: number;
  /** The first rooms pruned (oldest first), by id and title. */
  rooms: { id: string; title: string; lastActivityAt: string }[];
  /** Their ids, every one, so live viewers can be told (empty for a dry run). */
  deletedIds: string[];
}

/**
 * Deletes every room idle for more than `idleDays` days — no event since — with everything in
 * it, in one transaction, and records the prune in the admin audit trail with the rooms' ids and
 * titles. A room someone has open, or with a run queued or running, is not idle and is kept.
 */
export async function pruneIdleRooms(database: Database, input: PruneRoomsInput, now: Date = new Date()): Promise<PruneResult> {
  const cutoff = new Date(now.getTime() - input.idleDays * DAY);
  const idle = and(
    lt(rooms.lastActivityAt, cutoff),
    notExists(
      database.db
        .select({ one: sql`1` })
        .from(presence)
        .where(and(sql`${presence.roomId} = ${rooms.id}`, gt(presence.lastSeenAt, new Date(now.getTime() - PRESENCE_STALE_MS)))),
    ),
    notExists(
      database.db
        .select({ one: sql`1` })
        .from(runs)
        .where(and(sql`${runs.roomId} = ${rooms.id}`, inArray(runs.status, ["queued", "running"]))),
    ),
  );
  const base = { idleDays: input.idleDays, cutoff: cutoff.toISOString(), dryRun: input.dryRun };
  const describe = (list: { id: string; title: string; lastActivityAt: Date }[]) =>
    [...list]
      .sort((a, b) => a.lastActivityAt.getTime() - b.lastActivityAt.getTime())
      .slice(0, PREVIEW_ROOMS)
      .map((room) => ({ id: room.id, title: room.title, lastActivityAt: room.lastActivityAt.toISOString() }));
  if (input.dryRun) {
    const [[counted], first] = await Promise.all([
      database.db.select({ count: sql<number>`count(*)::int` }).from(rooms).where(idle),
      database.db
        .select({ id: rooms.id, title: rooms.title, lastActivityAt: rooms.lastActivityAt })
        .from(rooms)
        .where(idle)
        .orderBy(asc(rooms.lastActivityAt))
        .limit(PREVIEW_ROOMS),
    ]);
    return { ...base, count: Number(counted?.count ?? 0), rooms: describe(first), deletedIds: [] };
  }
  return database.db.transaction(async (tx) => {
    const deleted = await tx
      .delete(rooms)
      .where(idle)
      .returning({ id: rooms.id, title: rooms.title, lastActivityAt: rooms.lastActivityAt });
    if (deleted.length > 0) {
      await adminActionInsert(
        tx,
        {
          action: "rooms.pruned",
          summary: `pruned ${deleted.length} room${deleted.length === 1 ? "" : "s"} idle for more than ${input.idleDays} day${input.idleDays === 1 ? "" : "s"}`,
          details: {
            idleDays: input.idleDays,
            cutoff: cutoff.toISOString(),
            rooms: deleted.map((room) => ({ id: room.id, title: room.title })),
          },
        },
        now,
      );
    }
    return { ...base, count: deleted.length, rooms: describe(deleted), deletedIds: deleted.map((room) => room.id) };
  });
}
