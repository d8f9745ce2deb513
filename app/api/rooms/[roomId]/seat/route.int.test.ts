import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { events, seats } from "@/db/schema";
import { readEventsAfter } from "@/lib/events/read-events";
import { createTestRoom } from "@/test/fixtures";
import { call, cookieFrom } from "@/test/http";
import { useTestRuntime } from "@/test/test-runtime";
import { GET, POST } from "./route";

const context = useTestRuntime();

describe("/api/rooms/[roomId]/seat", () => {
  it("seats a person with an HttpOnly cookie and recognises them by it", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const taken = await call(POST, { url: "/x", method: "POST", params: { roomId }, body: { displayName: " Ada " } });
    expect(taken.status).toBe(201);
    expect(taken.body.seat.displayName).toBe("Ada");
    const setCookie = taken.headers.get("set-cookie")!;
    expect(setCookie).toMatch(new RegExp(`^parley_seat_${roomId}=`));
    expect(setCookie).toMatch(/HttpOnly/);
    const me = await call(GET, { url: "/x", method: "GET", params: { roomId }, cookie: cookieFrom(setCookie) });
    expect(me.body.seat).toEqual(taken.body.seat);
    const stranger = await call(GET, { url: "/x", method: "GET", params: { roomId } });
    expect(stranger.body.seat).toBeNull();
    const events = await readEventsAfter(context.database.db, roomId, 0);
    expect(events.at(-1)).toMatchObject({ type: "seat.taken", agent_name: "Ada", payload: { displayName: "Ada" } });
  });

  it("refuses bad display names and unknown rooms", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    for (const body of [{ displayName: "" }, { displayName: "x".repeat(41) }, { name: "Ada" }, {}]) {
      const response = await call(POST, { url: "/x", method: "POST", params: { roomId }, body });
      expect(response.status).toBe(400);
    }
    expect((await readEventsAfter(context.database.db, roomId, 1)).length).toBe(0);
    expect((await call(POST, { url: "/x", method: "POST", params: { roomId: "missing" }, body: { displayName: "Ada" } })).status).toBe(404);
  });

  it("answers a retry with the same key like the original, with one seat and a cookie for it", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const take = (cookie?: string) =>
      call(POST, {
        url: "/x",
        method: "POST",
        params: { roomId },
        body: { displayName: "Ada" },
        cookie,
        headers: { "Idempotency-Key": "seat-1" },
      });
    const original = await take();
    // The answer was lost on the way: the browser sends the same request again.
    const retried = await take();
    expect(retried.status).toBe(201);
    expect(retried.body).toEqual(original.body);
    const rows = await context.database.db.select().from(seats).where(eq(seats.roomId, roomId));
    expect(rows).toHaveLength(1);
    expect((await readEventsAfter(context.database.db, roomId, 0)).filter((event) => event.type === "seat.taken")).toHaveLength(1);
    // The retry's cookie is the one that counts: only one token opens a seat.
    const cookie = cookieFrom(retried.headers.get("set-cookie"));
    const me = await call(GET, { url: "/x", method: "GET", params: { roomId }, cookie });
    expect(me.body.seat).toEqual(original.body.seat);
    const lost = await call(GET, { url: "/x", method: "GET", params: { roomId }, cookie: cookieFrom(original.headers.get("set-cookie")) });
    expect(lost.body.seat).toBeNull();

    // A retry from a browser that did get the cookie keeps it.
    const again = await take(cookie);
    expect(again.status).toBe(201);
    expect(cookieFrom(again.headers.get("set-cookie"))).toBe(cookie);
    expect((await call(GET, { url: "/x", method: "GET", params: { roomId }, cookie })).body.seat).toEqual(original.body.seat);
  });

  it("refuses a replay of the key without the seat's cookie once the retry window has passed", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const take = () =>
      call(POST, {
        url: "/x",
        method: "POST",
        params: { roomId },
        body: { displayName: "Ada" },
        headers: { "Idempotency-Key": "seat-old" },
      });
    const original = await take();
    expect(original.status).toBe(201);
    await context.database.db
      .update(events)
      .set({ createdAt: new Date(Date.now() - 2 * 60_000) })
      .where(and(eq(events.roomId, roomId), eq(events.type, "seat.taken")));

    const replayed = await take();
    expect(replayed.status).toBe(409);
    expect(replayed.body.error.message).toMatch(/already took a seat/);
    expect(replayed.headers.get("set-cookie")).toBeNull();
    // The holder keeps the seat.
    const cookie = cookieFrom(original.headers.get("set-cookie"));
    expect((await call(GET, { url: "/x", method: "GET", params: { roomId }, cookie })).body.seat).toEqual(original.body.seat);
    expect(await context.database.db.select().from(seats).where(eq(seats.roomId, roomId))).toHaveLength(1);
  });

  it("refuses a key reused for another name or a malformed key, and changes nothing", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const post = (displayName: string, key: string) =>
      call(POST, { url: "/x", method: "POST", params: { roomId }, body: { displayName }, headers: { "Idempotency-Key": key } });
    expect((await post("Ada", "seat-1")).status).toBe(201);
    const before = await readEventsAfter(context.database.db, roomId, 0);
    const reused = await post("Ben", "seat-1");
    expect(reused.status).toBe(409);
    expect(reused.headers.get("set-cookie")).toBeNull();
    const tooLong = await post("Ben", "k".repeat(129));
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error.message).toMatch(/Idempotency-Key/);
    expect(await readEventsAfter(context.database.db, roomId, 0)).toEqual(before);
    expect(await context.database.db.select().from(seats).where(eq(seats.roomId, roomId))).toHaveLength(1);
  });
});
