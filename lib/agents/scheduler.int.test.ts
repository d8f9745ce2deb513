import { eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { boardEntries, presence, rooms, runs } from "@/db/schema";
import { postBoardEntry } from "@/lib/board/post-entry";
import { writeRoomEvents } from "@/lib/events/write-room-events";
import { updateRoom } from "@/lib/rooms/update-room";
import { agentByPersona } from "@/test/agents";
import { createTestRoom, eventually } from "@/test/fixtures";
import { RoomBus } from "@/lib/realtime/bus";
import { getRoomSnapshot } from "@/lib/rooms/get-room-snapshot";
import { initialRoomState, nextTurn } from "@/components/room/room-state";
import { type TestDatabase, createTestDatabase } from "@/test/test-database";
import { enqueueRun } from "./enqueue-run";
import { finishRun } from "./finish-run";
import { Scheduler, electScheduler, scheduleRoom } from "./scheduler";

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database.destroy();
});

/** Someone has the room open, as a live stream's presence row records it. */
async function watch(roomId: string, lastSeenAt = new Date()) {
  await database.db
    .insert(presence)
    .values({ connectionId: crypto.randomUUID(), roomId, instanceId: "test-viewer", seatId: null, lastSeenAt });
}

async function dueAgain(roomId: string) {
  await database.db
    .update(rooms)
    .set({ lastScheduledAt: new Date(Date.now() - 60_000) })
    .where(eq(rooms.id, roomId));
}

/** A run of the Songwriter at `depth` of a chain, which posts a request for the Storyteller on the board. */
async function boardRequestFromRun(roomId: string, depth: number) {
  const songwriter = await agentByPersona(database, roomId, "songwriter");
  const { result } = await writeRoomEvents(database.db, roomId, async (tx, emit, at) => {
    const parent = await enqueueRun(tx, emit, {
      roomId,
      agentId: songwriter.id,
      trigger: "human",
      requestedBy: { id: "human:alice", name: "Alice" },
      prompt: "Write a verse.",
      chainDepth: depth,
      correlationId: "wf-lighthouse",
      at,
    });
    const entry = await postBoardEntry(tx, emit, {
      roomId,
      kind: "request",
      content: { targetPersona: "storyteller", ask: "Tell the story of the lighthouse", refNodeIds: [] },
      author: { id: songwriter.id, name: songwriter.name, agentId: songwriter.id, runId: parent.id },
      expiryMinutes: 60,
      correlationId: parent.correlationId,
      at,
    });
    return { parent, entry };
  });
  // The requesting run has ended; only the scheduler can serve its request now.
  await finishRun(database.db, result!.parent, songwriter, { status: "succeeded", error: null, durationMs: 0 }, null);
  return result!;
}

async function requestStatusOf(entryId: string) {
  const [entry] = await database.db.select().from(boardEntries).where(eq(boardEntries.id, entryId));
  return entry!.requestStatus;
}

describe("the scheduler", () => {
  it("lets one instance hold the scheduler lease until it lapses", async () => {
    expect(await electScheduler(database.db, "instance-a", 400)).toBe(true);
    expect(await electScheduler(database.db, "instance-b", 400)).toBe(false);
    expect(await electScheduler(database.db, "instance-a", 400)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(await electScheduler(database.db, "instance-b", 400)).toBe(true);
    expect(await electScheduler(database.db, "instance-a", 400)).toBe(false);
  });

  it("serves the oldest open request first, then picks a persona from the template", async () => {
    const { roomId } = await createTestRoom(database.db, { scheduler_enabled: true, scheduler_interval_seconds: 45 });
    const { result: request } = await writeRoomEvents(database.db, roomId, (tx, emit, at) =>
      postBoardEntry(tx, emit, {
        roomId,
        kind: "request",
        content: { targetPersona: "storyteller", ask: "Tell the story of the lighthouse", refNodeIds: [] },
        author: { id: "agent-x", name: "Scene Painter", agentId: null, runId: null },
        expiryMinutes: 60,
        at,
      }),
    );
    const first = await scheduleRoom(database.db, roomId);
    expect(first.kind).toBe("request");
    const storyteller = await agentByPersona(database, roomId, "storyteller");
    const [served] = await database.db.select().from(runs).where(eq(runs.roomId, roomId));
    expect(served!.agentId).toBe(storyteller.id);
    expect(served!.requestEntryId).toBe(request!.id);
    expect(served!.trigger).toBe("scheduler");
    expect(served!.prompt).toMatch(/Scene Painter asks you: Tell the story of the lighthouse/);
    const [entry] = await database.db.select().from(boardEntries).where(eq(boardEntries.id, request!.id));
    expect(entry!.requestStatus).toBe("queued");

    expect(await scheduleRoom(database.db, roomId)).toEqual({ kind: "skipped", reason: "not_due" });

    await database.db
      .update(rooms)
      .set({ lastScheduledAt: new Date(Date.now() - 60_000) })
      .where(eq(rooms.id, roomId));
    const second = await scheduleRoom(database.db, roomId);
    expect(second).toMatchObject({ kind: "random", persona: "songwriter" });
  });

  it("does not pile runs onto a busy room, and tells its pages the turn was taken", async () => {
    const { roomId } = await createTestRoom(database.db, { scheduler_enabled: true, max_concurrent_runs: 1 });
    const bus = new RoomBus(database);
    await bus.start();
    const turns: string[] = [];
    bus.subscribe(roomId, (delivery) => {
      if (delivery.kind === "event" && delivery.event.type === "scheduler.turn") turns.push(delivery.event.payload.lastScheduledAt);
    });
    try {
      expect((await scheduleRoom(database.db, roomId)).kind).toBe("random");
      await database.db
        .update(rooms)
        .set({ lastScheduledAt: new Date(Date.now() - 60_000) })
        .where(eq(rooms.id, roomId));
      expect(await scheduleRoom(database.db, roomId)).toEqual({ kind: "skipped", reason: "busy" });
      // Not due: no turn taken, nothing said.
      expect(await scheduleRoom(database.db, roomId)).toEqual({ kind: "skipped", reason: "not_due" });
      const [room] = await database.db.select({ at: rooms.lastScheduledAt }).from(rooms).where(eq(rooms.id, roomId));
      await eventually(() => expect(turns).toHaveLength(2));
      // The busy turn moved the clock; pages hear it, and a page opened now reads it.
      expect(turns[1]).toBe(room!.at!.toISOString());
      expect(Date.parse(turns[1]!)).toBeGreaterThan(Date.parse(turns[0]!));
      expect((await getRoomSnapshot(database.db, roomId)).lastScheduledAt).toBe(room!.at!.toISOString());
    } finally {
      await bus.stop();
    }
  });

  it("schedules only rooms that enabled it, and only from the elected instance", async () => {
    const { roomId: on } = await createTestRoom(database.db);
    await updateRoom(database.db, on, { settings: { scheduler_enabled: true } });
    const { roomId: off } = await createTestRoom(database.db);
    await watch(on);
    await watch(off);
    await database.db.delete(runs);
    await database.db.update(rooms).set({ lastScheduledAt: new Date() });
    await database.db.update(rooms).set({ lastScheduledAt: null }).where(eq(rooms.id, on));

    await new Promise((resolve) => setTimeout(resolve, 600));
    const leader = new Scheduler(database, { owner: "leader", leaseTtlMs: 5000 });
    const follower = new Scheduler(database, { owner: "follower", leaseTtlMs: 5000 });
    const outcomes = await leader.tick();
    expect(await follower.tick()).toEqual([]);
    expect(outcomes.filter((outcome) => outcome.kind !== "skipped")).toHaveLength(1);
    const scheduled = await database.db.select().from(runs);
    expect(scheduled.map((run) => run.roomId)).toEqual([on]);
    expect(scheduled.some((run) => run.roomId === off)).toBe(false);
  });

  it("starts agents only in rooms someone is watching, unless a room asks otherwise", async () => {
    const { roomId: watched } = await createTestRoom(database.db, { scheduler_enabled: true });
    const { roomId: unwatched } = await createTestRoom(database.db, { scheduler_enabled: true });
    const { roomId: leftWatching } = await createTestRoom(database.db, { scheduler_enabled: true });
    const { roomId: anyway } = await createTestRoom(database.db, { scheduler_enabled: true, scheduler_needs_viewers: false });
    await database.db.delete(runs);
    await database.db.update(rooms).set({ lastScheduledAt: new Date() });
    await database.db
      .update(rooms)
      .set({ lastScheduledAt: null })
      .where(inArray(rooms.id, [watched, unwatched, leftWatching, anyway]));
    await watch(watched);
    // A viewer whose stream stopped refreshing a minute ago has gone.
    await watch(leftWatching, new Date(Date.now() - 60_000));

    await new Promise((resolve) => setTimeout(resolve, 600));
    // The instance that already holds the scheduler lease.
    const outcomes = await new Scheduler(database, { owner: "leader", leaseTtlMs: 5000 }).tick();
    expect(outcomes.filter((outcome) => outcome.kind !== "skipped")).toHaveLength(2);
    const scheduled = await database.db.select({ roomId: runs.roomId }).from(runs);
    expect(scheduled.map((run) => run.roomId).sort()).toEqual([watched, anyway].sort());
  });

  it("opens a room with the template's first persona, then gives every persona its turn before anyone runs again", async () => {
    const { roomId } = await createTestRoom(database.db, { scheduler_enabled: true });
    const turns: string[] = [];
    for (let index = 0; index < 6; index++) {
      const outcome = await scheduleRoom(database.db, roomId);
      if (outcome.kind !== "random") throw new Error(`turn ${index} was ${outcome.kind}`);
      turns.push(outcome.persona);
      // The run is done before the next turn: the room is never busy here.
      await database.db.update(runs).set({ status: "succeeded", finishedAt: new Date() }).where(eq(runs.roomId, roomId));
      await dueAgain(roomId);
    }
    expect(turns).toEqual(["songwriter", "scene-painter", "idea-weaver", "storyteller", "curator", "songwriter"]);
  });

  it("starts the agent the room's page names as next, also when several last ran at the same moment", async () => {
    const { roomId } = await createTestRoom(database.db, { scheduler_enabled: true });
    const pageSays = async () => nextTurn(initialRoomState(await getRoomSnapshot(database.db, roomId), null))!.agent.persona;
    const started: { named: string; started: string }[] = [];
    for (let turn = 0; turn < 7; turn++) {
      // Every run so far was queued in the same millisecond: the ranking alone tells them apart.
      await database.db
        .update(runs)
        .set({ createdAt: new Date("2026-01-01T00:00:00Z") })
        .where(eq(runs.roomId, roomId));
      const named = await pageSays();
      const outcome = await scheduleRoom(database.db, roomId);
      if (outcome.kind !== "random") throw new Error(`turn ${turn} was ${outcome.kind}`);
      started.push({ named, started: outcome.persona });
      await database.db.update(runs).set({ status: "succeeded", finishedAt: new Date() }).where(eq(runs.roomId, roomId));
      await dueAgain(roomId);
    }
    expect(started.filter((turn) => turn.named !== turn.started)).toEqual([]);
    // Once all five had run at the same moment, the turn order decides again: the first of it.
    expect(started.map((turn) => turn.started)).toEqual([
      "songwriter",
      "scene-painter",
      "idea-weaver",
      "storyteller",
      "curator",
      "songwriter",
      "songwriter",
    ]);
  });

  it("gives the persona its share of the room's task, never a second subject beside it", async () => {
    const { roomId } = await createTestRoom(database.db, {
      scheduler_enabled: true,
      task: "Write a song about rain on a city window at night.",
    });
    await scheduleRoom(database.db, roomId);
    await database.db.update(runs).set({ status: "succeeded", finishedAt: new Date() }).where(eq(runs.roomId, roomId));
    await dueAgain(roomId);
    await scheduleRoom(database.db, roomId);
    const prompts = (await database.db.select().from(runs).where(eq(runs.roomId, roomId))).map((run) => run.prompt).sort();
    expect(prompts[0]).toMatch(/^Write a song about rain on a city window at night\.\n\nYour part: paint a scene for it\./);
    expect(prompts[1]).toMatch(/^Write a song about rain on a city window at night\.\n\nYour part: write a short verse or chorus for it\./);
    for (const prompt of prompts) expect(prompt).not.toMatch(/lighthouse/);
  });

  it("serves a request a run posted on the board as the next link of that run's chain", async () => {
    const { roomId } = await createTestRoom(database.db, { scheduler_enabled: true });
    const { parent, entry } = await boardRequestFromRun(roomId, 1);
    const outcome = await scheduleRoom(database.db, roomId);
    expect(outcome).toMatchObject({ kind: "request", entryId: entry.id });
    const [served] = await database.db.select().from(runs).where(eq(runs.requestEntryId, entry.id));
    expect(served!.parentRunId).toBe(parent.id);
    expect(served!.chainDepth).toBe(2);
    expect(served!.correlationId).toBe("wf-lighthouse");
    expect(served!.trigger).toBe("request");
  });

  it("refuses a board request that would go beyond the chain's depth limit", async () => {
    const { roomId } = await createTestRoom(database.db, { scheduler_enabled: true, max_chain_depth: 3 });
    const { entry } = await boardRequestFromRun(roomId, 3);
    const outcome = await scheduleRoom(database.db, roomId);
    expect(outcome.kind).toBe("random");
    expect(await database.db.select().from(runs).where(eq(runs.requestEntryId, entry.id))).toHaveLength(0);
    expect(await requestStatusOf(entry.id)).toBe("cancelled");
  });

  it("stops serving a request once as many runs as a run has attempts failed on it", async () => {
    const { roomId } = await createTestRoom(database.db, { scheduler_enabled: true });
    const { entry } = await boardRequestFromRun(roomId, 0);
    const storyteller = await agentByPersona(database, roomId, "storyteller");
    const failure = { error_type: "provider_error", error_message: "overloaded", retry_possible: false };
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      await dueAgain(roomId);
      const outcome = await scheduleRoom(database.db, roomId);
      expect(outcome).toMatchObject({ kind: "request", entryId: entry.id });
      const [run] = await database.db
        .select()
        .from(runs)
        .where(eq(runs.id, (outcome as { runId: string }).runId));
      await finishRun(database.db, run!, storyteller, { status: "failed", error: failure, durationMs: 0 }, null);
      expect(await requestStatusOf(entry.id)).toBe(attempt < 3 ? "open" : "failed");
    }
    await dueAgain(roomId);
    expect((await scheduleRoom(database.db, roomId)).kind).toBe("random");
  });
});
