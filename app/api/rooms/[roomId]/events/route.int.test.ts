import { describe, expect, it } from "vitest";
import { createNode } from "@/lib/canvas/create-node";
import { alice, createTestRoom, eventually } from "@/test/fixtures";
import { readSse } from "@/test/sse-reader";
import { params, useTestRuntime } from "@/test/test-runtime";
import { GET } from "./route";

const context = useTestRuntime();

async function roomWithNotes(count: number) {
  const { roomId } = await createTestRoom(context.database.db);
  for (let index = 0; index < count; index++) {
    await createNode(context.database.db, roomId, alice, { text: `note ${index + 1}`, x: 0, y: 0 });
  }
  return roomId;
}

function open(roomId: string, headers: Record<string, string> = {}, query = "") {
  const controller = new AbortController();
  const request = new Request(`http://localhost/api/rooms/${roomId}/events${query}`, {
    headers,
    signal: controller.signal,
  });
  return { controller, response: GET(request, params({ roomId })) };
}

describe("GET /api/rooms/[roomId]/events", () => {
  it("replays exactly the events after Last-Event-ID, then continues live", async () => {
    const roomId = await roomWithNotes(5);
    const { controller, response } = open(roomId, { "Last-Event-ID": "3" });
    const res = await response;
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    expect(res.headers.get("cache-control")).toBe("no-cache, no-transform");
    expect(res.headers.get("x-accel-buffering")).toBe("no");
    const sse = readSse(res.body!);

    await eventually(() => expect(sse.messages.filter((m) => m.id).map((m) => m.id)).toEqual(["4", "5", "6"]));
    await createNode(context.database.db, roomId, alice, { text: "live", x: 0, y: 0 });
    await eventually(() => expect(sse.messages.filter((m) => m.id).map((m) => m.id)).toEqual(["4", "5", "6", "7"]));

    const stored = sse.events().filter((event) => "seq" in event);
    expect(stored.map((event) => event.payload.node.text)).toEqual(["note 3", "note 4", "note 5", "live"]);
    expect(sse.messages[0]!.retry).toBeGreaterThan(0);
    controller.abort();
    await sse.cancel();
  });

  it("accepts ?after= when there is no Last-Event-ID, and prefers the header when both are sent", async () => {
    const roomId = await roomWithNotes(3);
    const byQuery = open(roomId, {}, "?after=2");
    const sseQuery = readSse((await byQuery.response).body!);
    await eventually(() => expect(sseQuery.messages.filter((m) => m.id).map((m) => m.id)).toEqual(["3", "4"]));
    byQuery.controller.abort();
    await sseQuery.cancel();

    const both = open(roomId, { "Last-Event-ID": "3" }, "?after=0");
    const sseBoth = readSse((await both.response).body!);
    await eventually(() => expect(sseBoth.messages.filter((m) => m.id).map((m) => m.id)).toEqual(["4"]));
    both.controller.abort();
    await sseBoth.cancel();
  });

  it("does not double an event written while the replay is running", async () => {
    const roomId = await roomWithNotes(20);
    const { controller, response } = open(roomId, {}, "?after=0");
    const writing = Promise.all(
      Array.from({ length: 10 }, (_, index) => createNode(context.database.db, roomId, alice, { text: `during ${index}`, x: 0, y: 0 })),
    );
    const sse = readSse((await response).body!);
    await writing;
    await eventually(() => expect(sse.messages.filter((m) => m.id)).toHaveLength(31));
    const ids = sse.messages.filter((m) => m.id).map((m) => Number(m.id));
    expect(ids).toEqual(Array.from({ length: 31 }, (_, index) => index + 1));
    controller.abort();
    await sse.cancel();
  });

  it("counts the connection as watching and stops counting when it closes", async () => {
    const roomId = await roomWithNotes(0);
    const { controller, response } = open(roomId);
    const sse = readSse((await response).body!);
    await eventually(async () => expect((await context.runtime.presence.count(roomId)).watching).toBe(1));
    await eventually(() =>
      expect(sse.events().find((event) => event.type === "presence")?.payload).toEqual({ watching: 1, participants: 0 }),
    );
    controller.abort();
    await sse.cancel();
    await eventually(async () => expect((await context.runtime.presence.count(roomId)).watching).toBe(0));
  });

  it("answers 404 for an unknown room and 400 for a malformed resume point", async () => {
    const missing = await open("no-such-room").response;
    expect(missing.status).toBe(404);
    const roomId = await roomWithNotes(0);
    const bad = await open(roomId, { "Last-Event-ID": "abc" }).response;
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.message).toMatch(/Last-Event-ID/);
  });
});
