import fs from "node:fs";
import path from "node:path";
import { eq } from "drizzle-orm";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { canvasNodes, rateLimits, rooms, runs, seats } from "@/db/schema";
import { createNoteRoute } from "@/lib/canvas/canvas-routes";
import { startAgentRun } from "@/lib/agents/start-agent-run";
import { readEventsAfter } from "@/lib/events/read-events";
import { appRoute } from "@/lib/http/participant-route";
import { agentByPersona } from "@/test/agents";
import { alice, createTestRoom } from "@/test/fixtures";
import { call, cookieFrom } from "@/test/http";
import { useOfflineServer } from "@/test/offline-server";
import { useTestRuntime } from "@/test/test-runtime";
import { GET as overview } from "@/app/api/admin/overview/route";
import { POST as signIn } from "@/app/api/admin/session/route";
import { POST as cancelRun } from "@/app/api/rooms/[roomId]/runs/[runId]/cancel/route";
import { POST as takeSeat } from "@/app/api/rooms/[roomId]/seat/route";
import { POST as startRun } from "@/app/api/rooms/[roomId]/runs/route";
import { POST as importRoom } from "@/app/api/rooms/import/route";
import { POST as createRoom } from "@/app/api/rooms/route";

const TOKEN = "admin-token-for-limit-tests-0123";
const context = useTestRuntime();
// Who may create rooms depends on the providers configured: none here, whatever the shell has set.
useOfflineServer();

beforeEach(() => {
  vi.stubEnv("ADMIN_TOKEN", TOKEN);
});

let addressCounter = 0;
/** A client address of its own for each test, so one test's requests never count against another's. */
const newAddress = () => `198.51.100.${++addressCounter}`;
const from = (address: string, extra: Record<string, string> = {}) => ({ "x-forwarded-for": address, ...extra });

const roomCount = async () => (await context.database.db.select({ id: rooms.id }).from(rooms)).length;

function expectRateLimited(
  response: { status: number; headers: Headers; body: { error: { code: string; message: string } } },
  what: RegExp,
) {
  expect(response.status).toBe(429);
  expect(response.body.error.code).toBe("too_many_requests");
  expect(response.body.error.message).toMatch(what);
  expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
}

describe("rate limits per client address", () => {
  it("answer room creation beyond the limit with 429 and Retry-After, creating nothing", async () => {
    vi.stubEnv("PARLEY_ROOMS_PER_HOUR", "2");
    const address = newAddress();
    const create = (headers: Record<string, string>) =>
      call(createRoom, { url: "/api/rooms", method: "POST", params: {}, body: { title: "Limited", template: "creative-canvas" }, headers });
    expect((await create(from(address))).status).toBe(201);
    expect((await create(from(address))).status).toBe(201);
    const before = await roomCount();
    expectRateLimited(await create(from(address)), /Too many rooms created: at most 2 an hour from one address; try again in \d+ s/);
    expect(await roomCount()).toBe(before);
    // Another address has its own allowance, and admins are not limited.
    expect((await create(from(newAddress()))).status).toBe(201);
    expect((await create(from(address, { authorization: `Bearer ${TOKEN}` }))).status).toBe(201);
  });

  it("answer imports beyond the limit with 429, creating nothing", async () => {
    vi.stubEnv("PARLEY_IMPORTS_PER_HOUR", "1");
    const address = newAddress();
    const yaml = fs.readFileSync(path.join(process.cwd(), "lib/rooms/fixtures/broadcast-human.yaml"), "utf8");
    const post = () => call(importRoom, { url: "/api/rooms/import", method: "POST", params: {}, body: { yaml }, headers: from(address) });
    expect((await post()).status).toBe(201);
    const before = await roomCount();
    expectRateLimited(await post(), /Too many teams imported: at most 1 an hour/);
    expect(await roomCount()).toBe(before);
  });

  it("answer seat taking beyond the limit with 429, seating nobody", async () => {
    vi.stubEnv("PARLEY_SEATS_PER_HOUR", "2");
    const { roomId } = await createTestRoom(context.database.db);
    const address = newAddress();
    const sit = (name: string) =>
      call(takeSeat, { url: "/x", method: "POST", params: { roomId }, body: { displayName: name }, headers: from(address) });
    expect((await sit("Ann")).status).toBe(201);
    expect((await sit("Bo")).status).toBe(201);
    const events = (await readEventsAfter(context.database.db, roomId, 0)).length;
    expectRateLimited(await sit("Cy"), /Too many seats taken/);
    expect(await context.database.db.select().from(seats).where(eq(seats.roomId, roomId))).toHaveLength(2);
    expect((await readEventsAfter(context.database.db, roomId, 0)).length).toBe(events);
  });

  it("answer run starts beyond the limit with 429, queuing nothing", async () => {
    vi.stubEnv("PARLEY_RUN_STARTS_PER_MINUTE", "1");
    const { roomId } = await createTestRoom(context.database.db);
    const address = newAddress();
    const seat = await call(takeSeat, {
      url: "/x",
      method: "POST",
      params: { roomId },
      body: { displayName: "Ann" },
      headers: from(address),
    });
    const cookie = cookieFrom(seat.headers.get("set-cookie"));
    const songwriter = await agentByPersona(context.database, roomId, "songwriter");
    const start = () =>
      call(startRun, {
        url: "/x",
        method: "POST",
        params: { roomId },
        body: { agentId: songwriter.id, prompt: "Go" },
        cookie,
        headers: from(address),
      });
    expect((await start()).status).toBe(201);
    expectRateLimited(await start(), /Too many agents started: at most 1 a minute/);
    expect(await context.database.db.select().from(runs).where(eq(runs.roomId, roomId))).toHaveLength(1);
  });

  it("answer a retried start with its original 201 after the limit is reached, counting the retry for nothing", async () => {
    vi.stubEnv("PARLEY_RUN_STARTS_PER_MINUTE", "1");
    const { roomId } = await createTestRoom(context.database.db);
    const address = newAddress();
    const seat = await call(takeSeat, {
      url: "/x",
      method: "POST",
      params: { roomId },
      body: { displayName: "Ann" },
      headers: from(address),
    });
    const cookie = cookieFrom(seat.headers.get("set-cookie"));
    const songwriter = await agentByPersona(context.database, roomId, "songwriter");
    const start = (key: string, prompt = "Go") =>
      call(startRun, {
        url: "/x",
        method: "POST",
        params: { roomId },
        body: { agentId: songwriter.id, prompt },
        cookie,
        headers: from(address, { "idempotency-key": key }),
      });
    const first = await start("start-once-1");
    expect(first.status).toBe(201);
    expectRateLimited(await start("start-once-2"), /Too many agents started: at most 1 a minute/);
    // The first start's answer was lost; its retry gets it again, however often it comes.
    for (let retry = 0; retry < 3; retry++) {
      const again = await start("start-once-1");
      expect(again.status).toBe(201);
      expect(again.body).toEqual(first.body);
    }
    // The key is the first start's: another start under it is a 409, not a new run.
    expect((await start("start-once-1", "Something else")).status).toBe(409);
    expect(await context.database.db.select().from(runs).where(eq(runs.roomId, roomId))).toHaveLength(1);
    // The retries spent nothing: a new start is still refused by the limit, not let through.
    expectRateLimited(await start("start-once-3"), /Too many agents started/);
  });

  it("answer a seat's writes beyond its limit with 429, writing nothing, whatever address it writes from", async () => {
    vi.stubEnv("PARLEY_SEAT_WRITES_PER_MINUTE", "2");
    const { roomId } = await createTestRoom(context.database.db);
    const seat = await call(takeSeat, {
      url: "/x",
      method: "POST",
      params: { roomId },
      body: { displayName: "Ann" },
      headers: from(newAddress()),
    });
    const cookie = cookieFrom(seat.headers.get("set-cookie"));
    const addNote = appRoute(createNoteRoute);
    const note = (text: string) =>
      call(addNote, { url: "/x", method: "POST", params: { roomId }, body: { text, x: 0, y: 0 }, cookie, headers: from(newAddress()) });
    expect((await note("one")).status).toBe(201);
    expect((await note("two")).status).toBe(201);
    const refused = await note("three");
    expect(refused.status).toBe(429);
    expect(refused.body.error.message).toMatch(/Too many changes: at most 2 a minute from one seat/);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await context.database.db.select().from(canvasNodes).where(eq(canvasNodes.roomId, roomId))).toHaveLength(2);
  });
});

describe("a seat's rate of writes on routes that serve admins too", () => {
  it("refuses a seat's stops beyond its limit with 429, stopping nothing, while an admin without a seat is not limited", async () => {
    vi.stubEnv("PARLEY_SEAT_WRITES_PER_MINUTE", "2");
    const { roomId } = await createTestRoom(context.database.db);
    const seat = await call(takeSeat, {
      url: "/x",
      method: "POST",
      params: { roomId },
      body: { displayName: "Ann" },
      headers: from(newAddress()),
    });
    const cookie = cookieFrom(seat.headers.get("set-cookie"));
    const queued = [];
    for (const persona of ["songwriter", "storyteller", "scene-painter"]) {
      const agent = await agentByPersona(context.database, roomId, persona);
      queued.push(await startAgentRun(context.database.db, roomId, { agentId: agent.id }, alice));
    }
    const stop = (runId: string, options: { cookie?: string; headers?: Record<string, string> }) =>
      call(cancelRun, { url: "/x", method: "POST", params: { roomId, runId }, ...options, headers: from(newAddress(), options.headers) });
    expect((await stop(queued[0]!.id, { cookie })).status).toBe(200);
    expect((await stop(queued[1]!.id, { cookie })).status).toBe(200);
    const refused = await stop(queued[2]!.id, { cookie });
    expectRateLimited(refused, /Too many changes: at most 2 a minute from one seat/);
    const [still] = await context.database.db.select().from(runs).where(eq(runs.id, queued[2]!.id));
    expect(still!.status).toBe("queued");
    expect((await stop(queued[2]!.id, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
  });
});

describe("who may create rooms", () => {
  const create = (headers: Record<string, string> = {}) =>
    call(createRoom, {
      url: "/api/rooms",
      method: "POST",
      params: {},
      body: { title: "Mine", template: "creative-canvas" },
      headers: { ...from(newAddress()), ...headers },
    });

  it("is admins only when the server says so: others get a 403 and nothing is created", async () => {
    vi.stubEnv("PARLEY_ROOM_CREATION", "admins");
    const before = await roomCount();
    const refused = await create();
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toMatch(/Only admins may create rooms on this server/);
    const yaml = fs.readFileSync(path.join(process.cwd(), "lib/rooms/fixtures/broadcast-human.yaml"), "utf8");
    const imported = await call(importRoom, {
      url: "/api/rooms/import",
      method: "POST",
      params: {},
      body: { yaml },
      headers: from(newAddress()),
    });
    expect(imported.status).toBe(403);
    expect(imported.body.error.message).toMatch(/Only admins may import teams/);
    expect(await roomCount()).toBe(before);
    expect((await create({ authorization: `Bearer ${TOKEN}` })).status).toBe(201);
  });

  it("is anyone while only the offline model is configured, and admins only once a paid provider's key is set", async () => {
    expect((await create()).status).toBe(201);
    vi.stubEnv("OPENAI_API_KEY", "sk-test-not-a-real-key");
    expect((await create()).status).toBe(403);
    vi.stubEnv("PARLEY_ROOM_CREATION", "anyone");
    expect((await create()).status).toBe(201);
  });

  it("is admins only once a key imported teams may name is set, saying why: nothing is created or imported", async () => {
    const yaml = fs.readFileSync(path.join(process.cwd(), "lib/rooms/fixtures/broadcast-human.yaml"), "utf8");
    const importTeam = (headers: Record<string, string> = {}) =>
      call(importRoom, {
        url: "/api/rooms/import",
        method: "POST",
        params: {},
        body: { yaml },
        headers: { ...from(newAddress()), ...headers },
      });
    // Allowed but not set: nothing to spend on yet.
    vi.stubEnv("PARLEY_IMPORT_KEY_VARIABLES", "GROQ_API_KEY,PARLEY_TEST_TEAM_KEY");
    expect((await create()).status).toBe(201);

    vi.stubEnv("PARLEY_TEST_TEAM_KEY", "team-key-not-a-real-one");
    const before = await roomCount();
    const rateCounts = (await context.database.db.select().from(rateLimits)).length;
    const refused = await create();
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toBe(
      "Only admins may create rooms on this server (a key for a paid model provider is set). Sign in at /admin first.",
    );
    const imported = await importTeam();
    expect(imported.status).toBe(403);
    expect(imported.body.error.message).toBe(
      "Only admins may import teams on this server (a key for a paid model provider is set). Sign in at /admin first.",
    );
    // Neither is counted against the address's allowance either: nothing at all is written.
    expect(await roomCount()).toBe(before);
    expect((await context.database.db.select().from(rateLimits)).length).toBe(rateCounts);
    expect((await importTeam({ authorization: `Bearer ${TOKEN}` })).status).toBe(201);
  });

  it("is admins only once a hosted service's own key is set, which a team calling that service may name unlisted", async () => {
    vi.stubEnv("GROQ_API_KEY", "gsk-not-a-real-key");
    const refused = await create();
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toMatch(/\(a key for a paid model provider is set\)/);
  });

  it("says the setting is why when it is admins", async () => {
    vi.stubEnv("PARLEY_ROOM_CREATION", "admins");
    expect((await create()).body.error.message).toMatch(/^Only admins may create rooms on this server \(PARLEY_ROOM_CREATION is admins\)/);
  });
});

describe("admin sign-in", () => {
  const attempt = (token: string, address: string) =>
    call(signIn, { url: "/api/admin/session", method: "POST", params: {}, body: { token }, headers: from(address) });

  it("is throttled after five failures a minute from one address, the right token included, and not elsewhere", async () => {
    const address = newAddress();
    for (let failure = 0; failure < 5; failure++) {
      const refused = await attempt("not-the-admin-token-000", address);
      expect(refused.status).toBe(403);
    }
    const throttled = await attempt("not-the-admin-token-000", address);
    expectRateLimited(throttled, /Too many failed admin sign-ins: at most 5 a minute/);
    const rightButThrottled = await attempt(TOKEN, address);
    expect(rightButThrottled.status).toBe(429);
    expect(rightButThrottled.headers.get("set-cookie")).toBeNull();
    const elsewhere = await attempt(TOKEN, newAddress());
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.headers.get("set-cookie")).toMatch(/^parley_admin=/);
  });

  it("counts a wrong bearer token on any admin route with them: the sixth is a 429, the right token's too, and another address is unaffected", async () => {
    const address = newAddress();
    const read = (token: string, from_: string, extra: Record<string, string> = {}) =>
      call(overview, {
        url: "/api/admin/overview",
        method: "GET",
        params: {},
        headers: from(from_, { authorization: `Bearer ${token}`, ...extra }),
      });
    for (let failure = 0; failure < 5; failure++) expect((await read("not-the-admin-token-000", address)).status).toBe(403);
    expectRateLimited(await read("not-the-admin-token-000", address), /Too many failed admin sign-ins: at most 5 a minute/);
    // While the address waits, the right token learns nothing either, and signing in is refused too.
    expect((await read(TOKEN, address)).status).toBe(429);
    expect((await attempt(TOKEN, address)).status).toBe(429);
    expect((await read("not-the-admin-token-000", newAddress())).status).toBe(403);
    const elsewhere = await attempt(TOKEN, newAddress());
    expect(elsewhere.status).toBe(200);
    expect((await read(TOKEN, newAddress())).status).toBe(200);
    // An admin already signed in is not a guess: the session works from the waiting address.
    const signedIn = await call(overview, {
      url: "/api/admin/overview",
      method: "GET",
      params: {},
      headers: from(address),
      cookie: cookieFrom(elsewhere.headers.get("set-cookie")),
    });
    expect(signedIn.status).toBe(200);
  });

  it("counts wrong bearer tokens wherever they are sent, refusing every bearer token of the address once spent, changing nothing", async () => {
    vi.stubEnv("PARLEY_ROOM_CREATION", "admins");
    const { roomId } = await createTestRoom(context.database.db);
    const songwriter = await agentByPersona(context.database, roomId, "songwriter");
    const run = await startAgentRun(context.database.db, roomId, { agentId: songwriter.id }, alice);
    const address = newAddress();
    const wrong = from(address, { authorization: "Bearer not-the-admin-token-000" });
    const create = (headers: Record<string, string>) =>
      call(createRoom, { url: "/api/rooms", method: "POST", params: {}, body: { title: "Mine", template: "creative-canvas" }, headers });
    const stop = (headers: Record<string, string>) =>
      call(cancelRun, { url: "/x", method: "POST", params: { roomId, runId: run.id }, headers });
    expect((await attempt("not-the-admin-token-000", address)).status).toBe(403);
    expect((await create(wrong)).status).toBe(403);
    expect((await create(wrong)).status).toBe(403);
    expect((await stop(wrong)).status).toBe(403);
    expect((await stop(wrong)).status).toBe(403);
    const before = await roomCount();
    expectRateLimited(await create(from(address, { authorization: `Bearer ${TOKEN}` })), /Too many failed admin sign-ins/);
    expectRateLimited(await stop(from(address, { authorization: `Bearer ${TOKEN}` })), /Too many failed admin sign-ins/);
    expect(await roomCount()).toBe(before);
    const [still] = await context.database.db.select().from(runs).where(eq(runs.id, run.id));
    expect(still!.status).toBe("queued");
  });

  it("does not count successful sign-ins", async () => {
    const address = newAddress();
    for (let success = 0; success < 7; success++) expect((await attempt(TOKEN, address)).status).toBe(200);
  });
});
