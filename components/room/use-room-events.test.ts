import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { RoomEvent } from "@/lib/protocol";
import { DEFAULT_ROOM_SETTINGS } from "@/lib/rooms/room-settings";
import { FIXTURE_TIME, nodeDto, storedEvent } from "@/test/builders";
import { createRoomStore } from "./room-store";
import { type EventSourceLike, connectRoomEvents } from "./use-room-events";

/** A stream the test drives: it opens, delivers messages and fails on cue. */
class FakeStream implements EventSourceLike {
  readyState = 0;
  onopen: ((event: Event) => void) | null = null;
  onmessage: ((event: MessageEvent<string>) => void) | null = null;
  onerror: ((event: Event) => void) | null = null;
  closed = false;
  constructor(readonly url: string) {}
  open() {
    this.readyState = 1;
    this.onopen?.(new Event("open"));
  }
  send(event: RoomEvent | string) {
    this.onmessage?.(new MessageEvent("message", { data: typeof event === "string" ? event : JSON.stringify(event) }));
  }
  /** The browser lost the connection; `forGood` when it will not reconnect by itself. */
  fail(forGood: boolean) {
    this.readyState = forGood ? 2 : 0;
    this.onerror?.(new Event("error"));
  }
  close() {
    this.closed = true;
    this.readyState = 2;
  }
}

function room(lastSeq = 1) {
  return createRoomStore(
    {
      room: { id: "r", title: "T", template: "creative-canvas", lastSeq, createdAt: FIXTURE_TIME, lastActivityAt: FIXTURE_TIME },
      settings: DEFAULT_ROOM_SETTINGS,
      agents: [],
      nodes: [],
      edges: [],
      runs: [],
      board: [],
      broadcasts: [],
      broadcastResponses: [],
      findings: [],
      pendingCommands: [],
      turnOrder: [],
      lastScheduledAt: null,
      lastRunAt: {},
      recentEvents: [],
      brainstorm: null,
      lastSeq,
    },
    null,
  );
}

let streams: FakeStream[];
const open = (url: string) => {
  const stream = new FakeStream(url);
  streams.push(stream);
  return stream;
};
const latest = () => streams.at(-1)!;
const node = (seq: number) => storedEvent("node.created", { node: nodeDto({ id: `n${seq}` }) }, { seq });

beforeEach(() => {
  streams = [];
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe("the room's event stream", () => {
  it("applies what it is sent, in order, from the sequence number the page has", () => {
    const store = room(3);
    const stop = connectRoomEvents("r", store, open);
    expect(latest().url).toBe("/api/rooms/r/events?after=3");
    expect(store.getState().connection).toBe("connecting");
    latest().open();
    latest().send(node(4));
    latest().send(node(5));
    expect(store.getState()).toMatchObject({ connection: "live", lastSeq: 5 });
    expect(Object.keys(store.getState().nodes)).toEqual(["n4", "n5"]);
    stop();
    expect(latest().closed).toBe(true);
  });

  it("lets the browser resume by itself, and reopens from the last event applied when it gave up", async () => {
    const store = room(1);
    connectRoomEvents("r", store, open);
    latest().open();
    latest().send(node(2));
    latest().fail(false);
    expect(store.getState().connection).toBe("reconnecting");
    expect(streams).toHaveLength(1);

    vi.stubGlobal("fetch", vi.fn().mockResolvedValue(new Response("{}", { status: 200 })));
    latest().fail(true);
    await vi.advanceTimersByTimeAsync(0);
    expect(streams).toHaveLength(1);
    // The first retry waits the shortest backoff, the next one longer.
    await vi.advanceTimersByTimeAsync(500);
    expect(streams).toHaveLength(2);
    expect(latest().url).toBe("/api/rooms/r/events?after=2");
    latest().fail(true);
    await vi.advanceTimersByTimeAsync(999);
    expect(streams).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(streams).toHaveLength(3);
    latest().open();
    expect(store.getState().connection).toBe("live");
  });

  it("reopens at once from the last event applied when it sees a gap, dropping what came early", () => {
    const store = room(1);
    connectRoomEvents("r", store, open);
    latest().open();
    latest().send(node(2));
    latest().send(node(4));
    expect(store.getState().lastSeq).toBe(2);
    expect(streams[0]!.closed).toBe(true);
    vi.advanceTimersByTime(0);
    expect(latest().url).toBe("/api/rooms/r/events?after=2");
  });

  it("closes for good when the room is deleted, told on the stream or found gone after a refusal", async () => {
    const told = room(1);
    connectRoomEvents("r", told, open);
    latest().open();
    latest().send({ type: "room.deleted", room_id: "r", payload: {} });
    expect(told.getState()).toMatchObject({ deleted: true, connection: "closed" });
    expect(latest().closed).toBe(true);

    const found = room(1);
    const fetch = vi.fn().mockResolvedValue(new Response("{}", { status: 404 }));
    vi.stubGlobal("fetch", fetch);
    connectRoomEvents("r", found, open);
    latest().fail(true);
    await vi.runAllTimersAsync();
    expect(fetch).toHaveBeenCalledWith("/api/rooms/r", { cache: "no-store" });
    expect(found.getState()).toMatchObject({ deleted: true, connection: "closed" });
    expect(streams.filter((stream) => !stream.closed)).toHaveLength(0);
  });

  it("steps over an event it cannot read, says so, and goes on", () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    const store = room(1);
    connectRoomEvents("r", store, open);
    latest().open();
    // @ts-expect-error -- deliberately malformed: a node event whose node has nothing but an id
    latest().send({ ...node(2), payload: { node: { id: "broken" } } });
    latest().send("not json at all");
    latest().send(node(3));
    expect(store.getState()).toMatchObject({ lastSeq: 3, unreadableEvents: 1 });
    expect(Object.keys(store.getState().nodes)).toEqual(["n3"]);
    expect(error).toHaveBeenCalledTimes(2);
    expect(String(error.mock.calls[0]![0])).toMatch(/could not read an event of room r: node.created/);
    expect(streams).toHaveLength(1);
  });

  it("counts a seat taken while the stream is open on that stream, retrying while the server cannot answer", async () => {
    const fetch = vi
      .fn()
      .mockResolvedValueOnce(new Response("", { status: 503, statusText: "Service Unavailable" }))
      .mockResolvedValueOnce(Response.json({ connectionId: "c1", seatId: "s1" }));
    vi.stubGlobal("fetch", fetch);
    const store = room(1);
    connectRoomEvents("r", store, open);
    latest().open();
    latest().send({ type: "stream.opened", room_id: "r", payload: { connectionId: "c1", seatId: null } });
    store.getState().setSeat({ id: "s1", displayName: "Ada" });
    await vi.runAllTimersAsync();
    expect(fetch).toHaveBeenCalledTimes(2);
    expect(fetch.mock.calls[1]![0]).toBe("/api/rooms/r/presence");
    expect(JSON.parse(String((fetch.mock.calls[1]![1] as RequestInit).body))).toEqual({ connectionId: "c1" });
    expect(store.getState().stream).toEqual({ connectionId: "c1", seatId: "s1" });
  });

  it("drops a seat's count for a stream that closed, and asks again on the next one", async () => {
    let answer: (response: Response) => void = () => {};
    const fetch = vi.fn().mockImplementation(
      (_url: string, init: RequestInit) =>
        new Promise<Response>((resolve, reject) => {
          answer = resolve;
          init.signal?.addEventListener("abort", () => reject(init.signal!.reason));
        }),
    );
    vi.stubGlobal("fetch", fetch);
    const store = room(1);
    connectRoomEvents("r", store, open);
    latest().open();
    latest().send({ type: "stream.opened", room_id: "r", payload: { connectionId: "c1", seatId: null } });
    store.getState().setSeat({ id: "s1", displayName: "Ada" });
    expect(fetch).toHaveBeenCalledTimes(1);
    const first = fetch.mock.calls[0]![1] as RequestInit;
    latest().fail(false);
    expect(first.signal!.aborted).toBe(true);

    latest().open();
    latest().send({ type: "stream.opened", room_id: "r", payload: { connectionId: "c2", seatId: null } });
    expect(fetch).toHaveBeenCalledTimes(2);
    expect(JSON.parse(String((fetch.mock.calls[1]![1] as RequestInit).body))).toEqual({ connectionId: "c2" });
    answer(Response.json({ connectionId: "c2", seatId: "s1" }));
    await vi.runAllTimersAsync();
    expect(store.getState().stream).toEqual({ connectionId: "c2", seatId: "s1" });
  });
});
