import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type EphemeralEvent, type StoredEvent, parseStoredEvents } from "@/lib/protocol";
import { createRoomStore } from "@/components/room/room-store";
import { roomSnapshot } from "@/test/builders";
import { comparable, historyAction, roomHistory } from "@/test/room-history";
import { type LoadEvents, RoomReplay, foldEvents, replayStart } from "./room-replay";
import recordedFork from "./fixtures/recorded-fork.json";

/** How the live stream delivers, besides the next event: a signal never stored, an event again, one too early. */
type Noise = { kind: "next" } | { kind: "ephemeral"; which: number } | { kind: "again"; back: number } | { kind: "early"; ahead: number };

const noise: fc.Arbitrary<Noise> = fc.oneof(
  { weight: 6, arbitrary: fc.constant({ kind: "next" as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("ephemeral" as const), which: fc.nat(4) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("again" as const), back: fc.nat(5) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("early" as const), ahead: fc.integer({ min: 2, max: 4 }) }) },
);

function ephemeral(which: number, event: StoredEvent): EphemeralEvent {
  const room_id = event.room_id;
  switch (which) {
    case 0:
      return { type: "presence", room_id, payload: { watching: which + 2, participants: 1 } };
    case 1:
      return { type: "agent.typing", room_id, payload: { runId: "run-x", agentId: "a-songwriter", step: 0, delta: "la la " } };
    case 2:
      return { type: "stream.opened", room_id, payload: { connectionId: "c1", seatId: null, serverTime: event.timestamp } };
    case 3:
      return { type: "scheduler.turn", room_id, payload: { lastScheduledAt: event.timestamp } };
    default:
      return { type: "presence", room_id, payload: { watching: 0, participants: 0 } };
  }
}

/**
 * A page that opened the room right after its creation and kept it live through its stream, as
 * `use-room-events` does: every stored event once in order, whatever the stream delivers — signals
 * never stored in between, events again after a reconnect, an event too early (a gap, after which
 * the stream is opened again from the last event applied). Returns its state after each event.
 */
function watchLive(events: StoredEvent[], deliveries: Noise[]): Map<number, ReturnType<typeof comparable>> {
  const created = events[0]! as Extract<StoredEvent, { type: "room.created" }>;
  const store = createRoomStore(
    roomSnapshot({
      room: {
        id: created.room_id,
        title: created.payload.title,
        template: created.payload.template,
        lastSeq: 1,
        createdAt: created.timestamp,
        lastActivityAt: created.timestamp,
      },
      agents: created.payload.agents,
      // A room continued from another starts with what it copied.
      nodes: created.payload.copied?.nodes ?? [],
      edges: created.payload.copied?.edges ?? [],
      board: created.payload.copied?.board ?? [],
      settings: { ...roomSnapshot().settings, ...(created.payload.settings as object) },
      recentEvents: [created],
      lastSeq: 1,
    }),
    null,
  );
  const seen = new Map([[1, comparable(store.getState())]]);
  let turn = 0;
  while (store.getState().lastSeq < events.length) {
    const next = store.getState().lastSeq; // index of the next event
    const delivery = deliveries.length ? deliveries[turn++ % deliveries.length]! : { kind: "next" as const };
    if (delivery.kind === "ephemeral") store.getState().apply(ephemeral(delivery.which, events[next]!));
    if (delivery.kind === "again") expect(store.getState().apply(events[Math.max(0, next - 1 - delivery.back)]!)).toBe("duplicate");
    if (delivery.kind === "early" && next + delivery.ahead < events.length) {
      expect(store.getState().apply(events[next + delivery.ahead - 1]!)).toBe("gap");
    }
    // Whatever came first, the stream (opened again after a gap) goes on with the next event.
    expect(store.getState().apply(events[next]!)).toBe("applied");
    seen.set(next + 1, comparable(store.getState()));
  }
  return seen;
}

/** The room's log as the server pages it, holding the events up to `available()`. */
function pagedLog(events: StoredEvent[], available: () => number = () => events.length): LoadEvents & { calls: number } {
  const load = async (after: number, limit: number) => {
    load.calls += 1;
    return events.filter((event) => event.seq > after && event.seq <= Math.min(after + limit, available()));
  };
  load.calls = 0;
  return load;
}

describe("replaying a room from its log", () => {
  it("shows at every event exactly what a live page had then, from any kept state, seeking back and forth", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(historyAction, { minLength: 1, maxLength: 90 }),
        fc.array(noise, { maxLength: 30 }),
        fc.record({
          checkpointEvery: fc.integer({ min: 1, max: 12 }),
          maxCheckpoints: fc.integer({ min: 2, max: 6 }),
          pageSize: fc.integer({ min: 1, max: 40 }),
          maxPages: fc.integer({ min: 2, max: 5 }),
        }),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 25 }),
        async (actions, deliveries, sizes, seeks) => {
          const events = roomHistory(actions);
          const live = watchLive(events, deliveries);
          const replay = new RoomReplay({
            start: replayStart(createRoomStore(roomSnapshot(), null).getState()),
            load: pagedLog(events),
            lastSeq: events.length,
            ...sizes,
          });
          for (const fraction of seeks) {
            const seq = 1 + Math.floor(fraction * (events.length - 1));
            expect(comparable(await replay.stateAt(seq)), `at event ${seq}`).toEqual(live.get(seq));
            expect(replay.held.checkpoints).toBeLessThanOrEqual(sizes.maxCheckpoints);
            expect(replay.held.pages).toBeLessThanOrEqual(sizes.maxPages);
          }
          // The last moment is the live room itself.
          expect(comparable(await replay.stateAt(events.length))).toEqual(live.get(events.length));
        },
      ),
      { numRuns: 120 },
    );
  });

  it("does the same over a recorded room: a fork where the Songwriter and the Scene Painter worked, recorded in the browser", async () => {
    const events = parseStoredEvents(recordedFork).events;
    expect(events).toHaveLength(recordedFork.length);
    expect(events[0]!.type).toBe("room.created");
    await fc.assert(
      fc.asyncProperty(
        fc.array(noise, { maxLength: 20 }),
        fc.integer({ min: 1, max: 10 }),
        fc.integer({ min: 1, max: 15 }),
        fc.array(fc.integer({ min: 1, max: events.length }), { minLength: 1, maxLength: 15 }),
        async (deliveries, checkpointEvery, pageSize, seeks) => {
          const live = watchLive(events, deliveries);
          const page = roomSnapshot();
          const replay = new RoomReplay({
            start: replayStart(createRoomStore({ ...page, room: { ...page.room, id: events[0]!.room_id } }, null).getState()),
            load: pagedLog(events),
            lastSeq: events.length,
            checkpointEvery,
            pageSize,
            maxPages: 2,
          });
          for (const seq of seeks) expect(comparable(await replay.stateAt(seq)), `at event ${seq}`).toEqual(live.get(seq));
        },
      ),
      { numRuns: 40 },
    );
  });

  it("goes on to events that arrive after it started, reading again the page that was short", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(historyAction, { minLength: 20, maxLength: 80 }),
        fc.integer({ min: 3, max: 30 }),
        async (actions, pageSize) => {
          const events = roomHistory(actions);
          const live = watchLive(events, []);
          let available = Math.ceil(events.length / 2);
          const load = pagedLog(events, () => available);
          const replay = new RoomReplay({
            start: replayStart(createRoomStore(roomSnapshot(), null).getState()),
            load,
            lastSeq: available,
            pageSize,
            checkpointEvery: 4,
          });
          expect(comparable(await replay.stateAt(available))).toEqual(live.get(available));
          // Asking beyond the log's end shows its end.
          expect((await replay.stateAt(events.length)).lastSeq).toBe(available);
          available = events.length;
          replay.extend(events.length);
          for (const seq of [events.length, Math.ceil(events.length / 2) + 1, 1]) {
            expect(comparable(await replay.stateAt(seq)), `at event ${seq}`).toEqual(live.get(seq));
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it("keeps at most its kept states and pages however long the room, and reads each page once while it is held", async () => {
    const events = roomHistory(fc.sample(historyAction, { seed: 7, numRuns: 3000 }));
    const load = pagedLog(events);
    const replay = new RoomReplay({
      start: replayStart(createRoomStore(roomSnapshot(), null).getState()),
      load,
      lastSeq: events.length,
      checkpointEvery: 10,
      maxCheckpoints: 50,
      pageSize: 100,
      maxPages: 4,
    });
    await replay.index();
    expect(replay.held.checkpoints).toBeLessThanOrEqual(50);
    expect(replay.held.every).toBeGreaterThanOrEqual(Math.ceil(events.length / 50));
    expect(replay.held.pages).toBeLessThanOrEqual(4);
    const reads = load.calls;
    await replay.stateAt(events.length - 5);
    await replay.stateAt(events.length - 3);
    expect(load.calls).toBe(reads);
  });

  it("steps over events the page cannot read, as the live page does, and keeps their numbers", async () => {
    const events = roomHistory(fc.sample(historyAction, { seed: 3, numRuns: 40 }));
    const readable = events.filter((event) => event.seq % 7 !== 0);
    const start = replayStart(createRoomStore(roomSnapshot(), null).getState());
    const folded = foldEvents(start, readable);
    expect(folded.lastSeq).toBe(events.length);
    const replay = new RoomReplay({
      start,
      load: pagedLog(readable, () => events.length),
      lastSeq: events.length,
      checkpointEvery: 5,
      pageSize: 9,
    });
    const state = await replay.stateAt(events.length);
    expect(state.lastSeq).toBe(events.length);
    expect(state.unreadableEvents).toBe(Math.floor(events.length / 7));
    expect(state.feed.every((event) => event.seq % 7 !== 0)).toBe(true);
    expect(comparable(state)).toEqual(comparable({ ...folded, feed: state.feed }));
  });
});
