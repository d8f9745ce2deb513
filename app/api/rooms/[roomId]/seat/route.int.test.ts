import { describe, expect, it } from "vitest";
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
});
