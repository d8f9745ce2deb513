import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { StoredEvent } from "@/lib/protocol";
import { createRoomStore } from "@/components/room/room-store";
import { roomSnapshot } from "@/test/builders";
import { historyAction, roomHistory } from "@/test/room-history";
import { markColumns } from "./timeline-bar";
import { QUIET_SKIP_MS, createTimeline } from "./timeline";
import { createViewStore } from "./view-store";

/** A room page whose live store has seen `events` up to `seen`, with a timeline on a clock the test moves. */
function page(events: StoredEvent[], seen: number) {
  const created = events[0]!;
  const live = createRoomStore(
    roomSnapshot({
      room: {
        id: "r",
        title: "A history",
        template: "creative-canvas",
        lastSeq: 1,
        createdAt: created.timestamp,
        lastActivityAt: created.timestamp,
      },
      recentEvents: [created],
      lastSeq: 1,
    }),
    { id: "seat-1", displayName: "Ada" },
  );
  for (const event of events.slice(1, seen)) live.getState().apply(event);
  let now = 0;
  const timers: { at: number; run: () => void }[] = [];
  const addresses: (number | null)[] = [];
  const timeline = createTimeline(live, {
    load: async (after, limit) =>
      events.filter((event) => event.seq > after && event.seq <= Math.min(after + limit, live.getState().lastSeq)),
    readInfo: async () => ({ lastSeq: live.getState().lastSeq, marks: [], origin: null, forks: [], replay: null }),
    showInAddress: (at) => addresses.push(at),
    now: () => now,
    setTimer: (run, ms) => {
      const timer = { at: now + ms, run };
      timers.push(timer);
      return timer;
    },
    clearTimer: (timer) => timers.splice(timers.indexOf(timer as (typeof timers)[number]), 1),
  });
  /** Moves the clock on by `ms`, running the timers due, and lets the replay's reads finish. */
  const advance = async (ms: number) => {
    const until = now + ms;
    for (;;) {
      // The replay reads its log through promises: let them settle before the clock moves on.
      for (let turn = 0; turn < 30; turn++) await Promise.resolve();
      timers.sort((a, b) => a.at - b.at);
      const next = timers[0];
      if (!next || next.at > until) break;
      timers.shift();
      now = next.at;
      next.run();
    }
    now = until;
  };
  return { live, timeline, advance, addresses };
}

const EVENTS = roomHistory(fc.sample(historyAction, { seed: 5, numRuns: 60 }));

describe("a room page's timeline", () => {
  it("shows a moment as a spectator would, counts the events arriving meanwhile, and comes back live", async () => {
    const { live, timeline, addresses } = page(EVENTS, EVENTS.length - 5);
    const view = createViewStore(live, timeline.store).view;
    expect(view.getState().seat).toMatchObject({ displayName: "Ada" });
    await timeline.seek(10);
    expect(timeline.store.getState()).toMatchObject({ at: 10, arrived: 0 });
    expect(view.getState()).toMatchObject({ lastSeq: 10, seat: null, admin: false });
    expect(view.getState().feed.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(addresses).toEqual([10]);
    // The room goes on: the view stays at the moment, the count grows.
    for (const event of EVENTS.slice(EVENTS.length - 5, EVENTS.length - 2)) live.getState().apply(event);
    expect(timeline.store.getState().arrived).toBe(3);
    expect(view.getState().lastSeq).toBe(10);
    // Side panel state is the page's own, whichever moment it shows.
    view.getState().showSideTab("findings");
    expect(live.getState().sideTab).toBe("findings");
    expect(view.getState().sideTab).toBe("findings");
    timeline.goLive();
    expect(view.getState().lastSeq).toBe(EVENTS.length - 2);
    expect(view.getState().seat).toMatchObject({ displayName: "Ada" });
    expect(addresses.at(-1)).toBeNull();
    timeline.dispose();
  });

  it("plays forward at 16× with quiet stretches cut short, and goes live when it catches up", async () => {
    const { live, timeline, advance } = page(EVENTS, EVENTS.length);
    await timeline.seek(2);
    const play = timeline.play(16);
    await play;
    expect(timeline.store.getState().speed).toBe(16);
    // The history has pauses of ten minutes; none of them holds the replay up for longer than a quiet stretch.
    let elapsed = 0;
    let last = timeline.store.getState().at!;
    while (timeline.store.getState().at !== null) {
      await advance(50);
      elapsed += 50;
      const at = timeline.store.getState().at;
      if (at !== null && at !== last) {
        last = at;
        elapsed = 0;
      }
      expect(elapsed, `stuck at event ${last}`).toBeLessThanOrEqual(QUIET_SKIP_MS + 100);
    }
    expect(timeline.store.getState()).toMatchObject({ at: null, past: null, speed: null });
    expect(live.getState().lastSeq).toBe(EVENTS.length);
    timeline.dispose();
  });

  it("plays at the speed chosen: four times as far at 16× as at 4× in the same time", async () => {
    const gaps = roomHistory(Array.from({ length: 40 }, () => ({ kind: "note" as const, a: 0, b: 0, text: "n", x: 0, y: 0, pause: 0 })));
    const events = gaps.map((event, index) => ({
      ...event,
      timestamp: new Date(Date.parse(gaps[0]!.timestamp) + index * 400).toISOString(),
    }));
    const reached: number[] = [];
    for (const speed of [4, 16] as const) {
      const { timeline, advance } = page(events, events.length);
      await timeline.seek(1);
      await timeline.play(speed);
      await advance(600);
      reached.push(timeline.store.getState().at!);
      timeline.dispose();
    }
    // 600 ms at 4× covers 2.4 s of the room (six events 0.4 s apart); at 16×, 9.6 s (24 events).
    expect(reached[0]).toBeGreaterThanOrEqual(6);
    expect(reached[0]).toBeLessThanOrEqual(8);
    expect(reached[1]).toBeGreaterThanOrEqual(24);
    expect(reached[1]).toBeLessThanOrEqual(26);
  });
});

describe("the timeline's marks", () => {
  it("are grouped in columns along the history, each showing its most telling kind and listing its marks", () => {
    const at = "2026-11-22T10:00:00.000Z";
    const columns = markColumns(
      [
        { seq: 1, kind: "run", who: "Songwriter", type: "run.started", at },
        { seq: 2, kind: "gate", who: "Ada", type: "brainstorm.gate_decided", at },
        { seq: 100, kind: "edit", who: "Ada", type: "node.created", at },
      ],
      100,
      10,
    );
    expect(columns).toEqual([
      { left: 0, kind: "gate", seq: 2, label: "#1 Songwriter started working\n#2 Ada decided at the gate" },
      { left: 100, kind: "edit", seq: 100, label: "#100 Ada added a note" },
    ]);
  });
});
