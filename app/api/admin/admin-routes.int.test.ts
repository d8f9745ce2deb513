import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agents, canvasNodes, rooms } from "@/db/schema";
import { createNode } from "@/lib/canvas/create-node";
import { readEventsAfter } from "@/lib/events/read-events";
import { parseRoomSettings } from "@/lib/rooms/room-settings";
import { alice, createTestRoom } from "@/test/fixtures";
import { call, cookieFrom } from "@/test/http";
import { useTestRuntime } from "@/test/test-runtime";
import { GET as getRoom } from "../rooms/[roomId]/route";
import { DELETE, PATCH } from "./rooms/[roomId]/route";
import { GET as listRooms } from "./rooms/route";
import { DELETE as signOut, POST as signIn } from "./session/route";

const TOKEN = "admin-token-for-tests-0123";
let savedToken: string | undefined;

beforeAll(async () => {
  savedToken = process.env.ADMIN_TOKEN;
  process.env.ADMIN_TOKEN = TOKEN;
});
afterAll(async () => {
  if (savedToken === undefined) delete process.env.ADMIN_TOKEN;
  else process.env.ADMIN_TOKEN = savedToken;
});

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

const context = useTestRuntime();

describe("admin routes", () => {
  it("refuse everyone else: 401 without credentials, 403 with wrong ones", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const attempts: { headers: Record<string, string>; status: number }[] = [
      { headers: {}, status: 401 },
      { headers: bearer("wrong-token-wrong-token"), status: 403 },
      { headers: { cookie: "parley_admin=forged" }, status: 403 },
    ];
    for (const attempt of attempts) {
      const rename = await call(PATCH, {
        url: "/x",
        method: "PATCH",
        params: { roomId },
        body: { title: "Hacked" },
        headers: attempt.headers,
      });
      expect(rename.status).toBe(attempt.status);
      const remove = await call(DELETE, { url: "/x", method: "DELETE", params: { roomId }, headers: attempt.headers });
      expect(remove.status).toBe(attempt.status);
      expect((await call(listRooms, { url: "/x", method: "GET", params: {}, headers: attempt.headers })).status).toBe(attempt.status);
    }
    const [room] = await context.database.db.select().from(rooms).where(eq(rooms.id, roomId));
    expect(room!.title).not.toBe("Hacked");
    const wrongSignIn = await call(signIn, { url: "/x", method: "POST", params: {}, body: { token: "not-the-token" } });
    expect(wrongSignIn.status).toBe(403);
    expect(wrongSignIn.headers.get("set-cookie")).toBeNull();
  });

  it("let an admin signed in with the token rename a room and change its settings", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const session = await call(signIn, { url: "/x", method: "POST", params: {}, body: { token: TOKEN } });
    expect(session.status).toBe(200);
    const cookie = cookieFrom(session.headers.get("set-cookie"));
    const renamed = await call(PATCH, { url: "/x", method: "PATCH", params: { roomId }, body: { title: "Renamed" }, headers: { cookie } });
    expect(renamed.status).toBe(200);
    const tuned = await call(PATCH, {
      url: "/x",
      method: "PATCH",
      params: { roomId },
      body: { settings: { broadcast: "human", broadcast_timeout: 45, max_concurrent_runs: 2 } },
      headers: bearer(TOKEN),
    });
    expect(tuned.status).toBe(200);
    const [room] = await context.database.db.select().from(rooms).where(eq(rooms.id, roomId));
    expect(room!.title).toBe("Renamed");
    expect(parseRoomSettings(room!.settings)).toMatchObject({
      broadcast: "human",
      broadcast_timeout: 45,
      max_concurrent_runs: 2,
      max_steps: 10,
    });
    const events = (await readEventsAfter(context.database.db, roomId, 0)).filter((event) => event.type === "room.updated");
    expect(events.map((event) => event.agent)).toEqual(["admin", "admin"]);
    expect(events[0]!.payload).toEqual({ title: "Renamed" });

    const listed = await call(listRooms, { url: "/x", method: "GET", params: {}, headers: { cookie } });
    expect(listed.body.rooms.find((entry: { id: string }) => entry.id === roomId).settings.broadcast).toBe("human");
    const out = await call(signOut, { url: "/x", method: "DELETE", params: {} });
    expect(out.headers.get("set-cookie")).toMatch(/Max-Age=0/);
  });

  it("change only the settings a PATCH names, keeping every other setting as it was", async () => {
    const { roomId } = await createTestRoom(context.database.db, { max_steps: 7, broadcast: "agents", task: "Write a song" });
    const patched = await call(PATCH, {
      url: "/x",
      method: "PATCH",
      params: { roomId },
      body: { settings: { broadcast_timeout: 90 } },
      headers: bearer(TOKEN),
    });
    expect(patched.status).toBe(200);
    const [room] = await context.database.db.select().from(rooms).where(eq(rooms.id, roomId));
    expect(parseRoomSettings(room!.settings)).toMatchObject({
      broadcast_timeout: 90,
      max_steps: 7,
      broadcast: "agents",
      task: "Write a song",
    });
  });

  it("validate settings: unknown keys and out-of-range values are refused and change nothing", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const [before] = await context.database.db.select().from(rooms).where(eq(rooms.id, roomId));
    for (const settings of [{ broadcast: "everyone" }, { max_steps: 0 }, { broadcast_timeout: 100000 }, { colour: "red" }]) {
      const response = await call(PATCH, { url: "/x", method: "PATCH", params: { roomId }, body: { settings }, headers: bearer(TOKEN) });
      expect(response.status).toBe(400);
    }
    const tinyBudget = { settings: { context_token_budget: 99 } };
    const refused = await call(PATCH, { url: "/x", method: "PATCH", params: { roomId }, body: tinyBudget, headers: bearer(TOKEN) });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(/^settings\.context_token_budget: must be at least 100 tokens/);
    const nothing = await call(PATCH, { url: "/x", method: "PATCH", params: { roomId }, body: {}, headers: bearer(TOKEN) });
    expect(nothing.body.error.message).toMatch(/Nothing to change/);
    const [after] = await context.database.db.select().from(rooms).where(eq(rooms.id, roomId));
    expect(after).toEqual(before);
    expect(
      (await call(PATCH, { url: "/x", method: "PATCH", params: { roomId: "missing" }, body: { title: "x" }, headers: bearer(TOKEN) }))
        .status,
    ).toBe(404);
  });

  it("keep dialogue rounds within 0–5 and review rounds within 1–10, refusing anything outside with the setting named", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const patch = (settings: Record<string, unknown>) =>
      call(PATCH, { url: "/x", method: "PATCH", params: { roomId }, body: { settings }, headers: bearer(TOKEN) });
    const [before] = await context.database.db.select().from(rooms).where(eq(rooms.id, roomId));
    const outside = [
      [{ dialogue_max_rounds: -1 }, "dialogue_max_rounds"],
      [{ dialogue_max_rounds: 6 }, "dialogue_max_rounds"],
      [{ dialogue_max_rounds: 1.5 }, "dialogue_max_rounds"],
      [{ max_review_rounds: 0 }, "max_review_rounds"],
      [{ max_review_rounds: 11 }, "max_review_rounds"],
      [{ concern_phrases: ["x"] }, "concern_phrases"],
    ] as const;
    for (const [settings, name] of outside) {
      const refused = await patch(settings);
      expect(refused.status, JSON.stringify(settings)).toBe(400);
      expect(refused.body.error.message).toMatch(new RegExp(`^settings\\.${name}`));
    }
    const [unchanged] = await context.database.db.select().from(rooms).where(eq(rooms.id, roomId));
    expect(unchanged).toEqual(before);
    for (const settings of [
      { dialogue_max_rounds: 0, max_review_rounds: 1 },
      { dialogue_max_rounds: 5, max_review_rounds: 10, concern_phrases: ["smells off"] },
    ]) {
      expect((await patch(settings)).status).toBe(200);
      const [room] = await context.database.db.select().from(rooms).where(eq(rooms.id, roomId));
      expect(parseRoomSettings(room!.settings)).toMatchObject(settings);
    }
  });

  it("delete a room with everything in it", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    await createNode(context.database.db, roomId, alice, { text: "bye", x: 0, y: 0 });
    const removed = await call(DELETE, { url: "/x", method: "DELETE", params: { roomId }, headers: bearer(TOKEN) });
    expect(removed.status).toBe(204);
    expect(await context.database.db.select().from(canvasNodes).where(eq(canvasNodes.roomId, roomId))).toHaveLength(0);
    expect(await context.database.db.select().from(agents).where(eq(agents.roomId, roomId))).toHaveLength(0);
    expect(await readEventsAfter(context.database.db, roomId, 0)).toHaveLength(0);
    expect((await call(getRoom, { url: "/x", method: "GET", params: { roomId } })).status).toBe(404);
    expect((await call(DELETE, { url: "/x", method: "DELETE", params: { roomId }, headers: bearer(TOKEN) })).status).toBe(404);
  });
});
