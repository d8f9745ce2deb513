import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { Database } from "@/db";
import { presence } from "@/db/schema";
import type { RoomEvent } from "@/lib/protocol";
import { createTestRoom, eventually } from "@/test/fixtures";
import { holdAnswers } from "@/test/hold-answers";
import { useTestBus } from "@/test/test-runtime";
import { PresenceTracker, countPresence } from "./presence";

const context = useTestBus();

/** A tracker whose clock the test moves. */
function tracker(instanceId: string, database: Database = context.database) {
  let now = Date.now();
  const presenceTracker = new PresenceTracker(database, context.bus, {
    instanceId,
    heartbeatMs: 60_000,
    staleAfterMs: 45_000,
    announceDebounceMs: 5,
    now: () => new Date(now),
  });
  return { presence: presenceTracker, advance: (ms: number) => (now += ms) };
}

/** The watching counts announced in a room, latest last. */
function announced(roomId: string) {
  const counts: number[] = [];
  const unsubscribe = context.bus.subscribe(roomId, (delivery) => {
    if (delivery.kind === "event" && delivery.event.type === "presence") {
      counts.push((delivery.event as Extract<RoomEvent, { type: "presence" }>).payload.watching);
    }
  });
  return { counts, unsubscribe };
}

const rowsOf = (roomId: string) => context.database.db.select().from(presence).where(eq(presence.roomId, roomId));

describe("PresenceTracker", () => {
  it("keeps only its open connections fresh, so a row it failed to remove stops counting", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const { presence: instance, advance } = tracker("instance-ghosts");
    await instance.connect(roomId, null);
    // A row of this instance that is no longer open here (its removal failed).
    await context.database.db
      .insert(presence)
      .values({ connectionId: crypto.randomUUID(), roomId, instanceId: "instance-ghosts", seatId: null, lastSeenAt: new Date() });
    expect((await instance.count(roomId)).watching).toBe(2);
    const { counts, unsubscribe } = announced(roomId);
    for (let beat = 0; beat < 4; beat++) {
      advance(15_000);
      await instance.refresh();
    }
    expect((await instance.count(roomId)).watching).toBe(1);
    await eventually(() => expect(counts.at(-1)).toBe(1));
    unsubscribe();
    instance.stop();
  });

  it("announces the new count when another instance's connections go stale", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const { presence: dying } = tracker("instance-dying");
    const { presence: survivor, advance } = tracker("instance-survivor");
    await dying.connect(roomId, null);
    await dying.connect(roomId, null);
    await survivor.connect(roomId, null);
    // Let the connections' own announcements go out first.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const { counts, unsubscribe } = announced(roomId);
    // The first instance stops refreshing (it died); the survivor's heartbeat notices.
    advance(50_000);
    await survivor.refresh();
    await eventually(() => expect(counts.at(-1)).toBe(1));
    expect(await rowsOf(roomId)).toHaveLength(1);
    unsubscribe();
    survivor.stop();
  });

  it("forgets what it left behind under the same id when it starts again", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const before = tracker("instance-restarting");
    await before.presence.connect(roomId, null);
    await before.presence.connect(roomId, null);
    // The process ends without removing its rows; a new one starts under the same id.
    const { counts, unsubscribe } = announced(roomId);
    const after = tracker("instance-restarting");
    await after.presence.start();
    expect(await rowsOf(roomId)).toHaveLength(0);
    await eventually(() => expect(counts.at(-1)).toBe(0));
    unsubscribe();
    after.presence.stop();
  });

  it("removes its connections and announces at once when its server shuts down", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const { presence: leaving } = tracker("instance-leaving");
    const { presence: staying } = tracker("instance-staying");
    await leaving.connect(roomId, null);
    await leaving.connect(roomId, "seat-1");
    await staying.connect(roomId, null);
    const { counts, unsubscribe } = announced(roomId);
    await leaving.shutdown();
    expect(await rowsOf(roomId)).toHaveLength(1);
    await eventually(() => expect(counts.at(-1)).toBe(1));
    unsubscribe();
    staying.stop();
  });

  it("announces the latest count last when another instance's count comes back late", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const slowDatabase = holdAnswers(context.database);
    const { presence: slow } = tracker("instance-slow", slowDatabase.database);
    const { presence: fast } = tracker("instance-fast");
    const { counts, unsubscribe } = announced(roomId);
    await fast.connect(roomId, null);
    await slow.connect(roomId, null);
    // The slow instance counts the room (two watching) but hears back late...
    slowDatabase.hold();
    await eventually(() => expect(slowDatabase.waiting).toBeGreaterThan(0));
    // ...while a third viewer arrives on the other instance, which announces three.
    const joining = fast.connect(roomId, null);
    await new Promise((resolve) => setTimeout(resolve, 100));
    slowDatabase.release();
    await joining;
    await eventually(async () => expect((await fast.count(roomId)).watching).toBe(3));
    await eventually(() => expect(counts.at(-1)).toBe(3));
    // Whatever was still on its way has arrived by now: the room must not end on a stale count.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(counts.at(-1)).toBe(3);
    unsubscribe();
    slow.stop();
    fast.stop();
  });
});

describe("countPresence", () => {
  it("counts who watches each of the rooms asked about, and only those", async () => {
    const [first, second, other] = await Promise.all([1, 2, 3].map(() => createTestRoom(context.database.db)));
    const { presence: instance } = tracker("instance-lists");
    await instance.connect(first!.roomId, null);
    await instance.connect(first!.roomId, null);
    await instance.connect(second!.roomId, null);
    await instance.connect(other!.roomId, null);
    const counts = await countPresence(context.database, [first!.roomId, second!.roomId]);
    expect(Object.fromEntries(counts)).toEqual({ [first!.roomId]: 2, [second!.roomId]: 1 });
    expect(await countPresence(context.database, [])).toEqual(new Map());
    instance.stop();
  });
});
