import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rooms } from "@/db/schema";
import { createNode } from "@/lib/canvas/create-node";
import handler from "@/pages/api/rooms/[roomId]/events";
import { alice, createTestRoom, eventually } from "@/test/fixtures";
import { servePagesApi } from "@/test/pages-api-server";
import { readSse } from "@/test/sse-reader";
import { readEventsAfter } from "@/lib/events/read-events";
import type { RoomBus, Subscriber } from "./bus";
import { streamRoomEvents } from "./room-event-stream";
import { useTestRuntime } from "@/test/test-runtime";

const context = useTestRuntime();
let server: Awaited<ReturnType<typeof servePagesApi>>;
beforeAll(async () => {
  server = await servePagesApi("/api/rooms/[roomId]/events", handler);
});
afterAll(() => server.close());

async function roomWithNotes(count: number) {
  const { roomId } = await createTestRoom(context.database.db);
  for (let index = 0; index < count; index++) {
    await createNode(context.database.db, roomId, alice, { text: `note ${index + 1}`, x: 0, y: 0 });
  }
  return roomId;
}

async function open(roomId: string, headers: Record<string, string> = {}, query = "", method = "GET") {
  const controller = new AbortController();
  const response = await fetch(server.url(`/api/rooms/${roomId}/events${query}`), { method, headers, signal: controller.signal });
  return { controller, response };
}

async function openStream(roomId: string, headers: Record<string, string> = {}, query = "") {
  const { controller, response } = await open(roomId, headers, query);
  const sse = readSse(response.body!);
  return {
    response,
    sse,
    ids: () => sse.messages.filter((message) => message.id).map((message) => message.id),
    close: async () => {
      controller.abort();
      await sse.cancel();
    },
  };
}

describe("GET /api/rooms/[roomId]/events over HTTP", () => {
  it("replays exactly the events after Last-Event-ID, then continues live", async () => {
    const roomId = await roomWithNotes(5);
    const stream = await openStream(roomId, { "Last-Event-ID": "3" });
    expect(stream.response.status).toBe(200);
    expect(stream.response.headers.get("content-type")).toContain("text/event-stream");
    expect(stream.response.headers.get("cache-control")).toBe("no-cache, no-transform");
    expect(stream.response.headers.get("x-accel-buffering")).toBe("no");
    // Frames are sent as they are, not chunk-encoded; the stream ends with its connection.
    expect(stream.response.headers.get("transfer-encoding")).toBeNull();
    expect(stream.response.headers.get("connection")).toBe("close");

    await eventually(() => expect(stream.ids()).toEqual(["4", "5", "6"]));
    await createNode(context.database.db, roomId, alice, { text: "live", x: 0, y: 0 });
    await eventually(() => expect(stream.ids()).toEqual(["4", "5", "6", "7"]));

    const stored = stream.sse.events().filter((event) => "seq" in event);
    expect(stored.map((event) => event.payload.node.text)).toEqual(["note 3", "note 4", "note 5", "live"]);
    expect(stream.sse.messages[0]!.retry).toBeGreaterThan(0);
    await stream.close();
  });

  it("tells a page that opens when the scheduler last took its turn, which no replay carries", async () => {
    const roomId = await roomWithNotes(1);
    const quiet = await openStream(roomId);
    await eventually(() => expect(quiet.ids()).toEqual(["1", "2"]));
    await quiet.close();
    expect(quiet.sse.messages.some((message) => message.data.includes('"scheduler.turn"'))).toBe(false);

    const at = new Date("2026-03-01T10:00:00.000Z");
    await context.database.db.update(rooms).set({ lastScheduledAt: at }).where(eq(rooms.id, roomId));
    const stream = await openStream(roomId, { "Last-Event-ID": "2" });
    await eventually(() =>
      expect(
        stream.sse.messages
          .map((message) => message.data)
          .filter(Boolean)
          .map((data) => JSON.parse(data)),
      ).toContainEqual({
        type: "scheduler.turn",
        room_id: roomId,
        payload: { lastScheduledAt: at.toISOString() },
      }),
    );
    await stream.close();
  });

  it("accepts ?after= when there is no Last-Event-ID, and prefers the header when both are sent", async () => {
    const roomId = await roomWithNotes(3);
    const byQuery = await openStream(roomId, {}, "?after=2");
    await eventually(() => expect(byQuery.ids()).toEqual(["3", "4"]));
    await byQuery.close();

    const both = await openStream(roomId, { "Last-Event-ID": "3" }, "?after=0");
    await eventually(() => expect(both.ids()).toEqual(["4"]));
    await both.close();
  });

  it("does not double an event written while the replay is running", async () => {
    const roomId = await roomWithNotes(20);
    const writing = Promise.all(
      Array.from({ length: 10 }, (_, index) => createNode(context.database.db, roomId, alice, { text: `during ${index}`, x: 0, y: 0 })),
    );
    const stream = await openStream(roomId, {}, "?after=0");
    await writing;
    await eventually(() => expect(stream.ids()).toHaveLength(31));
    expect(stream.ids().map(Number)).toEqual(Array.from({ length: 31 }, (_, index) => index + 1));
    await stream.close();
  });

  it("counts the connection as watching and stops counting when the client goes away", async () => {
    const roomId = await roomWithNotes(0);
    const stream = await openStream(roomId);
    await eventually(async () => expect((await context.runtime.presence.count(roomId)).watching).toBe(1));
    await eventually(() =>
      expect(stream.sse.events().find((event) => event.type === "presence")?.payload).toEqual({ watching: 1, participants: 0 }),
    );
    expect(context.runtime.bus.subscriberCount(roomId)).toBe(1);
    await stream.close();
    await eventually(async () => expect((await context.runtime.presence.count(roomId)).watching).toBe(0));
    expect(context.runtime.bus.subscriberCount(roomId)).toBe(0);
  });

  it("answers 404 for an unknown room, 400 for a malformed resume point and 405 for other methods", async () => {
    const missing = await open("no-such-room");
    expect(missing.response.status).toBe(404);
    expect((await missing.response.json()).error.message).toMatch(/Room not found/);

    const roomId = await roomWithNotes(0);
    const bad = await open(roomId, { "Last-Event-ID": "abc" });
    expect(bad.response.status).toBe(400);
    expect((await bad.response.json()).error.message).toMatch(/Last-Event-ID/);

    const posted = await open(roomId, {}, "", "POST");
    expect(posted.response.status).toBe(405);
    expect(posted.response.headers.get("allow")).toBe("GET");
    expect(context.runtime.bus.subscriberCount(roomId)).toBe(0);
  });
});

describe("streamRoomEvents", () => {
  it("disconnects a client that falls too far behind, so it reconnects and replays", async () => {
    const roomId = await roomWithNotes(3);
    let buffered = 0;
    let ended = false;
    let aborted = false;
    const written: string[] = [];
    const stream = streamRoomEvents(
      { database: context.database, bus: context.runtime.bus, roomId, after: 0, maxBufferedBytes: 100_000 },
      {
        write: (chunk) => {
          written.push(Buffer.from(chunk).toString());
          buffered += chunk.byteLength;
        },
        get buffered() {
          return buffered;
        },
        end: () => {
          ended = true;
        },
        abort: () => {
          aborted = true;
        },
      },
    );
    await stream.ready;
    expect(aborted).toBe(false);
    expect(written.filter((frame) => frame.startsWith("id: "))).toHaveLength(4); // the room's creation and three notes
    expect(context.runtime.bus.subscriberCount(roomId)).toBe(1);

    buffered = 200_000;
    await createNode(context.database.db, roomId, alice, { text: "one too many", x: 0, y: 0 });
    // Dropped at once: ending would wait for a client that is not reading to drain its buffer.
    await eventually(() => expect(aborted).toBe(true));
    expect(ended).toBe(false);
    expect(context.runtime.bus.subscriberCount(roomId)).toBe(0);
  });

  it("ends the stream when it cannot read the events it missed, so the client resumes from the table", async () => {
    const roomId = await roomWithNotes(2);
    let failing = false;
    const db = new Proxy(context.database.db, {
      get(target, property, receiver) {
        if (failing && property === "select") throw new Error("the database went away");
        return Reflect.get(target, property, receiver);
      },
    });
    let deliver: Subscriber = () => {};
    const bus: Pick<RoomBus, "subscribe"> = {
      subscribe: (_room, subscriber) => {
        deliver = subscriber;
        return () => {};
      },
    };
    let ended = false;
    const stream = streamRoomEvents(
      { database: { ...context.database, db }, bus, roomId, after: 0 },
      { write: () => {}, buffered: 0, end: () => (ended = true), abort: () => {} },
    );
    await stream.ready;
    failing = true;
    const quiet = console.error;
    console.error = () => {};
    try {
      // Event 5 arrives while 4 was missed: the stream must read 4 first, and cannot.
      const [latest] = await readEventsAfter(context.database.db, roomId, 2);
      deliver({ kind: "event", event: { ...latest!, seq: 5 }, frame: new Uint8Array() });
      await eventually(() => expect(ended).toBe(true));
    } finally {
      console.error = quiet;
    }
  });
});
