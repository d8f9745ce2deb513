import { afterAll, beforeAll, describe, expect, it } from "vitest";
import handler from "@/pages/api/rooms/[roomId]/events";
import { createTestRoom, eventually } from "@/test/fixtures";
import { call, cookieFrom } from "@/test/http";
import { servePagesApi } from "@/test/pages-api-server";
import { readSse } from "@/test/sse-reader";
import { useTestRuntime } from "@/test/test-runtime";
import { POST as takeSeat } from "../seat/route";
import { POST } from "./route";

const context = useTestRuntime();
let server: Awaited<ReturnType<typeof servePagesApi>>;
beforeAll(async () => {
  server = await servePagesApi("/api/rooms/[roomId]/events", handler);
});
afterAll(() => server.close());

/** A page's event stream, opened with the page's cookie (none for a spectator). */
async function openStream(roomId: string, cookie?: string) {
  const controller = new AbortController();
  const response = await fetch(server.url(`/api/rooms/${roomId}/events`), {
    headers: cookie ? { cookie } : {},
    signal: controller.signal,
  });
  const sse = readSse(response.body!);
  const opened = await eventually(() => {
    const event = sse.events().find((candidate) => candidate.type === "stream.opened");
    expect(event).toBeDefined();
    return event.payload as { connectionId: string; seatId: string | null; serverTime: string };
  });
  return {
    opened,
    lastPresence: () => sse.events().findLast((event) => event.type === "presence")?.payload,
    close: async () => {
      controller.abort();
      await sse.cancel();
    },
  };
}

async function seatIn(roomId: string, displayName: string) {
  const taken = await call(takeSeat, { url: "/x", method: "POST", params: { roomId }, body: { displayName } });
  return { seatId: taken.body.seat.id as string, cookie: cookieFrom(taken.headers.get("set-cookie")) };
}

const countSeat = (roomId: string, body: unknown, cookie?: string) =>
  call(POST, { url: "/x", method: "POST", params: { roomId }, body, cookie });

describe("POST /api/rooms/[roomId]/presence", () => {
  it("counts a seat taken in a page on the stream that page already has, and tells everyone", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const spectator = await openStream(roomId);
    const page = await openStream(roomId);
    expect(page.opened.seatId).toBeNull();
    // The server's clock as it opened the stream, for the page to count down to the server's deadlines by.
    expect(Math.abs(Date.parse(page.opened.serverTime) - Date.now())).toBeLessThan(5_000);
    await eventually(() => expect(spectator.lastPresence()).toEqual({ watching: 2, participants: 0 }));

    const { seatId, cookie } = await seatIn(roomId, "Ada");
    const counted = await countSeat(roomId, { connectionId: page.opened.connectionId }, cookie);
    expect(counted.status).toBe(200);
    expect(counted.body).toEqual({ connectionId: page.opened.connectionId, seatId });
    expect(await context.runtime.presence.count(roomId)).toEqual({ watching: 2, participants: 1 });
    await eventually(() => expect(spectator.lastPresence()).toEqual({ watching: 2, participants: 1 }));

    // A stream opened with the seat's cookie is counted with it from the start.
    const seated = await openStream(roomId, cookie);
    expect(seated.opened.seatId).toBe(seatId);
    await eventually(() => expect(spectator.lastPresence()).toEqual({ watching: 3, participants: 1 }));
    await Promise.all([spectator.close(), page.close(), seated.close()]);
  });

  it("refuses spectators, malformed bodies and streams that are not open in the room, and changes nothing", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const { roomId: otherRoomId } = await createTestRoom(context.database.db);
    const page = await openStream(roomId);
    const elsewhere = await openStream(otherRoomId);
    const { cookie } = await seatIn(roomId, "Ada");

    const spectator = await countSeat(roomId, { connectionId: page.opened.connectionId });
    expect(spectator.status).toBe(403);
    for (const body of [{}, { connectionId: "not-an-id" }, { connectionId: page.opened.connectionId, seatId: "x" }]) {
      const response = await countSeat(roomId, body, cookie);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error.message).toMatch(/connectionId|seatId/);
    }
    const unknown = await countSeat(roomId, { connectionId: crypto.randomUUID() }, cookie);
    expect(unknown.status).toBe(404);
    const otherRoom = await countSeat(roomId, { connectionId: elsewhere.opened.connectionId }, cookie);
    expect(otherRoom.status).toBe(404);
    // A stream already counted for someone's seat is theirs: another participant cannot claim it.
    const { seatId: bo, cookie: boCookie } = await seatIn(roomId, "Bo");
    const boPage = await openStream(roomId, boCookie);
    expect(boPage.opened.seatId).toBe(bo);
    const taken = await countSeat(roomId, { connectionId: boPage.opened.connectionId }, cookie);
    expect(taken.status).toBe(404);

    expect(await context.runtime.presence.count(roomId)).toEqual({ watching: 2, participants: 1 });
    expect(await context.runtime.presence.count(otherRoomId)).toEqual({ watching: 1, participants: 0 });
    await Promise.all([page.close(), elsewhere.close(), boPage.close()]);
  });
});
