import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Database } from "@/db";
import { adminActions, adminSessions, instanceSecrets, rooms } from "@/db/schema";
import { ADMIN_COOKIE, adminStatus } from "@/lib/auth/admin";
import { instanceSecret } from "@/lib/auth/instance-secret";
import { hmac } from "@/lib/auth/tokens";
import { createTestRoom } from "@/test/fixtures";
import { call, cookieFrom, fromOwnAddress } from "@/test/http";
import { testDriver } from "@/test/test-database";
import { installTestRuntime, useTestRuntime } from "@/test/test-runtime";
import { setRuntime } from "@/lib/runtime";
import { GET as overview } from "./overview/route";
import { POST as prune } from "./rooms/prune/route";
import { PATCH as updateRoom } from "./rooms/[roomId]/route";
import { GET as listRooms } from "./rooms/route";
import { DELETE as signOut, POST as signIn } from "./session/route";
import { DELETE as endAllSessions, GET as listSessions } from "./sessions/route";

const TOKEN = "admin-token-for-session-tests";
const context = useTestRuntime({ durable: true });

beforeEach(async () => {
  vi.stubEnv("ADMIN_TOKEN", TOKEN);
  // The database outlives each test here (it is restarted on): each starts with nobody signed in.
  await context.database.db.delete(adminSessions);
});
afterEach(() => {
  vi.unstubAllEnvs();
  vi.useRealTimers();
});

async function signedInCookie(token = TOKEN, headers: Record<string, string> = {}): Promise<string> {
  const session = await call(signIn, { url: "/x", method: "POST", params: {}, body: { token }, headers: fromOwnAddress(headers) });
  expect(session.status).toBe(200);
  return cookieFrom(session.headers.get("set-cookie"));
}

const idOf = (cookie: string) => cookie.slice(ADMIN_COOKIE.length + 1);

const listWith = async (cookie: string) =>
  (await call(listRooms, { url: "/x", method: "GET", params: {}, headers: fromOwnAddress({ cookie }) })).status;

/** Runs `act` with the app's runtime on another handle to the database, as another instance would, then puts this one's back. */
async function asInstance<T>(database: Database, act: () => Promise<T>): Promise<T> {
  const other = await installTestRuntime(database);
  try {
    return await act();
  } finally {
    await other.stop();
    setRuntime(context.runtime);
  }
}

describe("admin sessions", () => {
  it("refuse a cookie made from the right token without signing in, as any wrong cookie, changing nothing", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const madeFromToken = `${ADMIN_COOKIE}=${hmac(TOKEN, "parley-admin-session-v1")}`;
    expect(await listWith(madeFromToken)).toBe(403);
    const rename = await call(updateRoom, {
      url: "/x",
      method: "PATCH",
      params: { roomId },
      body: { title: "Taken over" },
      headers: fromOwnAddress({ cookie: madeFromToken }),
    });
    expect(rename.status).toBe(403);
    const [room] = await context.database.db.select().from(rooms).where(eq(rooms.id, roomId));
    expect(room!.title).not.toBe("Taken over");
    // The pages read it the same way: signed out.
    expect(await adminStatus(context.database.db, { cookie: hmac(TOKEN, "parley-admin-session-v1") })).toBe("invalid");
    expect(await adminStatus(context.database.db, {})).toBe("anonymous");
  });

  it("give each sign-in a random session id of its own, which is all the cookie holds and which the database keeps only as a digest", async () => {
    const first = await signedInCookie(TOKEN, { "user-agent": "Firefox on the desk" });
    const second = await signedInCookie();
    expect(first).not.toBe(second);
    expect(idOf(first)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(idOf(first)).not.toContain(TOKEN);
    expect(await listWith(first)).toBe(200);
    expect(await listWith(second)).toBe(200);
    expect(await adminStatus(context.database.db, { cookie: idOf(first) })).toBe("admin");
    const rows = await context.database.db.select().from(adminSessions);
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row.idDigest).not.toBe(idOf(first));
      expect(row.idDigest).not.toBe(idOf(second));
      expect(row.tokenDigest).not.toContain(TOKEN);
    }
    expect(rows.map((row) => row.userAgent)).toContain("Firefox on the desk");
    // Signing in again from the same browser replaces its session.
    const again = await signedInCookie(TOKEN, { cookie: first });
    expect(await listWith(first)).toBe(403);
    expect(await listWith(again)).toBe(200);
    expect(await context.database.db.select().from(adminSessions)).toHaveLength(2);
    const secrets = await context.database.db.select().from(instanceSecrets);
    expect(secrets.map((secret) => secret.name)).toEqual(["admin-session"]);
    expect(secrets[0]!.value.length).toBeGreaterThanOrEqual(40);
  });

  it("end on the server at sign-out: the old cookie no longer reads the overview, renames or prunes, and changes nothing", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const cookie = await signedInCookie();
    const other = await signedInCookie();
    const overviewWith = async (with_: string) =>
      (await call(overview, { url: "/x", method: "GET", params: {}, headers: fromOwnAddress({ cookie: with_ }) })).status;
    expect(await overviewWith(cookie)).toBe(200);
    const out = await call(signOut, { url: "/x", method: "DELETE", params: {}, headers: fromOwnAddress({ cookie }) });
    expect(out.status).toBe(200);
    expect(out.headers.get("set-cookie")).toMatch(/^parley_admin=; .*Max-Age=0/);

    // The browser dropped it; a copy kept elsewhere is refused.
    expect(await overviewWith(cookie)).toBe(403);
    const rename = await call(updateRoom, {
      url: "/x",
      method: "PATCH",
      params: { roomId },
      body: { title: "Renamed after sign-out" },
      headers: fromOwnAddress({ cookie }),
    });
    expect(rename.status).toBe(403);
    await context.database.db
      .update(rooms)
      .set({ lastActivityAt: new Date(Date.now() - 30 * 86_400_000) })
      .where(eq(rooms.id, roomId));
    const pruned = await call(prune, { url: "/x", method: "POST", params: {}, body: { idleDays: 1 }, headers: fromOwnAddress({ cookie }) });
    expect(pruned.status).toBe(403);
    const [room] = await context.database.db.select().from(rooms).where(eq(rooms.id, roomId));
    expect(room!.title).not.toBe("Renamed after sign-out");
    // Signing out ended that session only.
    expect(await overviewWith(other)).toBe(200);
    expect(await context.database.db.select().from(adminSessions)).toHaveLength(1);
  });

  it("expire after PARLEY_ADMIN_SESSION_HOURS (12 by default), which the cookie's own lifetime matches", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const start = new Date("2026-05-01T08:00:00Z");
    vi.setSystemTime(start);
    const answer = await call(signIn, { url: "/x", method: "POST", params: {}, body: { token: TOKEN }, headers: fromOwnAddress() });
    expect(answer.headers.get("set-cookie")).toMatch(/Max-Age=43200(;|$)/);
    expect(answer.body.expiresAt).toBe("2026-05-01T20:00:00.000Z");
    const cookie = cookieFrom(answer.headers.get("set-cookie"));
    vi.setSystemTime(new Date(start.getTime() + 12 * 3_600_000 - 1000));
    expect(await listWith(cookie)).toBe(200);
    vi.setSystemTime(new Date(start.getTime() + 12 * 3_600_000));
    expect(await listWith(cookie)).toBe(403);

    vi.stubEnv("PARLEY_ADMIN_SESSION_HOURS", "0.5");
    const short = await call(signIn, { url: "/x", method: "POST", params: {}, body: { token: TOKEN }, headers: fromOwnAddress() });
    expect(short.headers.get("set-cookie")).toMatch(/Max-Age=1800(;|$)/);
    const shortCookie = cookieFrom(short.headers.get("set-cookie"));
    vi.setSystemTime(new Date(start.getTime() + 12 * 3_600_000 + 31 * 60_000));
    expect(await listWith(shortCookie)).toBe(403);
    // Signing in clears what is over.
    await signedInCookie();
    expect(await context.database.db.select().from(adminSessions)).toHaveLength(1);
  });

  it("are listed for admins, the asker's marked, and all end at once, recorded in the audit trail", async () => {
    const mine = await signedInCookie(TOKEN, { "user-agent": "Mine" });
    const theirs = await signedInCookie(TOKEN, { "user-agent": "Theirs" });
    const anonymous = await call(listSessions, { url: "/x", method: "GET", params: {}, headers: fromOwnAddress() });
    expect(anonymous.status).toBe(401);
    const listed = await call(listSessions, { url: "/x", method: "GET", params: {}, headers: fromOwnAddress({ cookie: mine }) });
    expect(listed.status).toBe(200);
    expect(listed.body.sessions).toHaveLength(2);
    expect(
      listed.body.sessions.map((session: { userAgent: string; current: boolean }) => [session.userAgent, session.current]).sort(),
    ).toEqual([
      ["Mine", true],
      ["Theirs", false],
    ]);
    expect(JSON.stringify(listed.body)).not.toContain(idOf(mine));

    const ended = await call(endAllSessions, { url: "/x", method: "DELETE", params: {}, headers: fromOwnAddress({ cookie: theirs }) });
    expect(ended.status).toBe(200);
    expect(ended.body).toEqual({ ended: 2 });
    expect(ended.headers.get("set-cookie")).toMatch(/Max-Age=0/);
    expect(await listWith(mine)).toBe(403);
    expect(await listWith(theirs)).toBe(403);
    const again = await call(endAllSessions, { url: "/x", method: "DELETE", params: {}, headers: fromOwnAddress({ cookie: theirs }) });
    expect(again.status).toBe(403);
    const trail = await context.database.db.select().from(adminActions).where(eq(adminActions.action, "admin.sessions_ended"));
    expect(trail).toHaveLength(1);
    expect(trail[0]!.details).toEqual({ sessions: 2 });
  });

  // PGlite holds one connection to its database, so a second instance is PostgreSQL's alone;
  // on PGlite the restart below stands in for it.
  if (testDriver() === "postgres")
    it("let every instance on one database accept the others' sessions", async () => {
      const [first, second] = [await context.database.connectAgain(), await context.database.connectAgain()];
      // Two instances starting together agree on one key.
      const [firstKey, secondKey] = await Promise.all([
        instanceSecret(first.db, "admin-session"),
        instanceSecret(second.db, "admin-session"),
      ]);
      expect(firstKey).toBe(secondKey);
      const fromHere = await signedInCookie();
      const fromThere = await asInstance(first, async () => {
        expect(await listWith(fromHere)).toBe(200);
        return signedInCookie();
      });
      expect(await listWith(fromThere)).toBe(200);
      await asInstance(second, async () => expect(await listWith(fromThere)).toBe(200));
    });

  it("keep sessions when the instance restarts on the same data", async () => {
    const cookie = await signedInCookie();
    await context.restart();
    expect(await listWith(cookie)).toBe(200);
    expect(await listWith(`${ADMIN_COOKIE}=${hmac(TOKEN, "parley-admin-session-v1")}`)).toBe(403);
  });

  it("end every session when the admin token changes", async () => {
    const cookie = await signedInCookie();
    expect(await listWith(cookie)).toBe(200);
    vi.stubEnv("ADMIN_TOKEN", "another-admin-token-for-session-tests");
    expect(await listWith(cookie)).toBe(403);
    const refused = await call(signIn, { url: "/x", method: "POST", params: {}, body: { token: TOKEN }, headers: fromOwnAddress() });
    expect(refused.status).toBe(403);
    expect(refused.headers.get("set-cookie")).toBeNull();
    const renewed = await signedInCookie("another-admin-token-for-session-tests");
    expect(renewed).not.toBe(cookie);
    expect(await listWith(renewed)).toBe(200);
    // Signing in with the new token cleared the sessions of the old: going back to it opens nothing.
    expect(await context.database.db.select().from(adminSessions)).toHaveLength(1);
    vi.stubEnv("ADMIN_TOKEN", TOKEN);
    expect(await listWith(cookie)).toBe(403);
  });
});
