import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Database } from "@/db";
import { instanceSecrets, rooms } from "@/db/schema";
import { ADMIN_COOKIE, adminStatus } from "@/lib/auth/admin";
import { instanceSecret } from "@/lib/auth/instance-secret";
import { hmac } from "@/lib/auth/tokens";
import { createTestRoom } from "@/test/fixtures";
import { call, cookieFrom, fromOwnAddress } from "@/test/http";
import { testDriver } from "@/test/test-database";
import { installTestRuntime, useTestRuntime } from "@/test/test-runtime";
import { setRuntime } from "@/lib/runtime";
import { PATCH as updateRoom } from "./rooms/[roomId]/route";
import { GET as listRooms } from "./rooms/route";
import { POST as signIn } from "./session/route";

const TOKEN = "admin-token-for-session-tests";
const context = useTestRuntime({ durable: true });

beforeEach(() => {
  vi.stubEnv("ADMIN_TOKEN", TOKEN);
});
afterEach(() => {
  vi.unstubAllEnvs();
});

async function signedInCookie(token = TOKEN): Promise<string> {
  const session = await call(signIn, { url: "/x", method: "POST", params: {}, body: { token }, headers: fromOwnAddress() });
  expect(session.status).toBe(200);
  return cookieFrom(session.headers.get("set-cookie"));
}

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

  it("accept the cookie that signing in sets, which depends on a key kept in the database and not on the token alone", async () => {
    const cookie = await signedInCookie();
    expect(cookie).not.toBe(`${ADMIN_COOKIE}=${hmac(TOKEN, "parley-admin-session-v1")}`);
    expect(await listWith(cookie)).toBe(200);
    expect(await adminStatus(context.database.db, { cookie: cookie.slice(ADMIN_COOKIE.length + 1) })).toBe("admin");
    const secrets = await context.database.db.select().from(instanceSecrets);
    expect(secrets.map((secret) => secret.name)).toEqual(["admin-session"]);
    expect(secrets[0]!.value.length).toBeGreaterThanOrEqual(40);
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
  });
});
