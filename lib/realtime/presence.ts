import { randomUUID } from "node:crypto";
import { and, countDistinct, count, eq, gt, inArray, isNull, lt, or, sql } from "drizzle-orm";
import { z } from "zod";
import type { Database, DbOrTx } from "@/db";
import { presence } from "@/db/schema";
import type { RoomBus } from "./bus";

export interface PresenceOptions {
  instanceId: string;
  heartbeatMs?: number;
  /** A connection not refreshed for this long is no longer counted (its instance died). */
  staleAfterMs?: number;
  /** Count changes within this window are announced once. */
  announceDebounceMs?: number;
  now?: () => Date;
}

export interface PresenceCount {
  watching: number;
  participants: number;
}

export const countSeatInputSchema = z.strictObject({
  connectionId: z.uuid("expected the id of an open event stream, from its stream.opened event"),
});

/** The first key of the advisory lock that makes a room's count announcements take turns (the room's hash is the second). */
const ANNOUNCE_LOCK_SPACE = 0x70726573;

/**
 * Counts who is watching each room across all app instances: one row per open live
 * connection, refreshed by its instance's heartbeat, so a crashed instance's viewers
 * drop out after `staleAfterMs`. Changes are announced as ephemeral `presence` events.
 *
 * Pages show the last count they hear, so a room's announcements go out in the order
 * their counts were taken, whichever instance makes them: each one counts under a lock
 * per room and notifies before it lets go (see `announce`).
 */
export class PresenceTracker {
  private readonly local = new Map<string, string>();
  private readonly pendingAnnouncements = new Map<string, NodeJS.Timeout>();
  private heartbeat: NodeJS.Timeout | null = null;
  private readonly heartbeatMs: number;
  private readonly staleAfterMs: number;
  private readonly debounceMs: number;
  private readonly now: () => Date;

  constructor(
    private readonly database: Database,
    private readonly bus: RoomBus,
    private readonly options: PresenceOptions,
  ) {
    this.heartbeatMs = options.heartbeatMs ?? 15_000;
    this.staleAfterMs = options.staleAfterMs ?? 45_000;
    this.debounceMs = options.announceDebounceMs ?? 250;
    this.now = options.now ?? (() => new Date());
  }

  /**
   * Forgets connections this instance left behind when it last ran under the same id (a
   * restart with `PARLEY_INSTANCE_ID` set), announcing the rooms' new counts, then starts
   * the heartbeat.
   */
  async start(): Promise<void> {
    if (this.heartbeat) return;
    this.heartbeat = setInterval(() => void this.refresh().catch(() => {}), this.heartbeatMs);
    this.heartbeat.unref();
    const left = await this.database.db
      .delete(presence)
      .where(eq(presence.instanceId, this.options.instanceId))
      .returning({ roomId: presence.roomId });
    for (const roomId of new Set(left.map((row) => row.roomId))) this.announceSoon(roomId);
  }

  stop(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
    for (const timer of this.pendingAnnouncements.values()) clearTimeout(timer);
    this.pendingAnnouncements.clear();
  }

  /**
   * For a server about to exit: removes its connections at once and announces the rooms'
   * new counts, rather than leaving them counted until they go stale.
   */
  async shutdown(): Promise<void> {
    this.stop();
    const ids = [...this.local.keys()];
    this.local.clear();
    if (ids.length === 0) return;
    const gone = await this.database.db.delete(presence).where(inArray(presence.connectionId, ids)).returning({ roomId: presence.roomId });
    await Promise.all([...new Set(gone.map((row) => row.roomId))].map((roomId) => this.announce(roomId)));
  }

  async connect(roomId: string, seatId: string | null): Promise<string> {
    const connectionId = randomUUID();
    this.local.set(connectionId, roomId);
    await this.database.db.insert(presence).values({
      connectionId,
      roomId,
      instanceId: this.options.instanceId,
      seatId,
      lastSeenAt: this.now(),
    });
    this.announceSoon(roomId);
    return connectionId;
  }

  /**
   * Counts an open connection as a seat's from now on, on whichever instance serves it: a
   * viewer who takes a seat keeps the stream they opened as a spectator. False when no such
   * connection is open in the room.
   */
  async seat(roomId: string, connectionId: string, seatId: string): Promise<boolean> {
    const changed = await this.database.db
      .update(presence)
      .set({ seatId })
      // A stream counted for another seat stays theirs.
      .where(
        and(eq(presence.connectionId, connectionId), eq(presence.roomId, roomId), or(isNull(presence.seatId), eq(presence.seatId, seatId))),
      )
      .returning({ connectionId: presence.connectionId });
    if (changed.length === 0) return false;
    this.announceSoon(roomId);
    return true;
  }

  async disconnect(connectionId: string): Promise<void> {
    const roomId = this.local.get(connectionId);
    this.local.delete(connectionId);
    await this.database.db.delete(presence).where(eq(presence.connectionId, connectionId));
    if (roomId) this.announceSoon(roomId);
  }

  count(roomId: string): Promise<PresenceCount> {
    return this.countOn(this.database.db, roomId);
  }

  private async countOn(db: DbOrTx, roomId: string): Promise<PresenceCount> {
    const threshold = new Date(this.now().getTime() - this.staleAfterMs);
    const [row] = await db
      .select({ watching: count(), participants: countDistinct(presence.seatId) })
      .from(presence)
      .where(and(eq(presence.roomId, roomId), gt(presence.lastSeenAt, threshold)));
    return { watching: Number(row?.watching ?? 0), participants: Number(row?.participants ?? 0) };
  }

  /**
   * Refreshes this instance's open connections (only those: a row whose removal failed is
   * not kept alive) and forgets every connection nobody refreshed, announcing the new
   * counts of the rooms that lost some (an instance that died, say).
   */
  async refresh(): Promise<void> {
    const now = this.now();
    const ids = [...this.local.keys()];
    if (ids.length > 0) {
      await this.database.db.update(presence).set({ lastSeenAt: now }).where(inArray(presence.connectionId, ids));
    }
    const gone = await this.database.db
      .delete(presence)
      .where(lt(presence.lastSeenAt, new Date(now.getTime() - this.staleAfterMs)))
      .returning({ roomId: presence.roomId });
    for (const roomId of new Set(gone.map((row) => row.roomId))) this.announceSoon(roomId);
  }

  /**
   * Counts and notifies in one transaction holding the room's announcement lock. Notifications
   * are delivered in commit order, and the next announcement (from any instance) counts only
   * once this one has committed, so no announcement can overtake a later count. Counting
   * and then publishing apart would let a count that came back slowly go out last.
   */
  private async announce(roomId: string): Promise<void> {
    await this.database.db.transaction(async (tx) => {
      // The count is sent right behind the lock: the server runs it once the lock is held, so
      // its snapshot is newer than the one the previous announcement counted from.
      const [, counts] = await Promise.all([
        tx.execute(sql`select pg_advisory_xact_lock(${ANNOUNCE_LOCK_SPACE}, hashtext(${roomId}))`),
        this.countOn(tx, roomId),
      ]);
      await this.bus.publishEphemeral({ type: "presence", room_id: roomId, payload: counts }, tx);
    });
  }

  private announceSoon(roomId: string): void {
    if (this.pendingAnnouncements.has(roomId)) return;
    const timer = setTimeout(() => {
      this.pendingAnnouncements.delete(roomId);
      void this.announce(roomId).catch(() => {});
    }, this.debounceMs);
    timer.unref();
    this.pendingAnnouncements.set(roomId, timer);
  }
}

/** Live viewer counts for many rooms at once (the room list). */
export async function countPresence(
  database: Database,
  roomIds: string[],
  staleAfterMs = 45_000,
  now: Date = new Date(),
): Promise<Map<string, number>> {
  const result = new Map<string, number>();
  if (roomIds.length === 0) return result;
  const threshold = new Date(now.getTime() - staleAfterMs);
  const rows = await database.db
    .select({ roomId: presence.roomId, watching: count() })
    .from(presence)
    .where(and(inArray(presence.roomId, roomIds), gt(presence.lastSeenAt, threshold)))
    .groupBy(presence.roomId);
  for (const row of rows) result.set(row.roomId, Number(row.watching));
  return result;
}
