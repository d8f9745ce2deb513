import { eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminActions, agents, presence, rooms, runs } from "@/db/schema";
import { startAgentRun } from "@/lib/agents/start-agent-run";
import { createNode } from "@/lib/canvas/create-node";
import { readEventsAfter } from "@/lib/events/read-events";
import { addUsage } from "@/lib/usage/record-usage";
import { agentByPersona } from "@/test/agents";
import { alice, createTestRoom } from "@/test/fixtures";
import { call, fromOwnAddress } from "@/test/http";
import { jsonRequest, params, useTestRuntime } from "@/test/test-runtime";
import { GET as audit } from "./audit/route";
import { PATCH as patchAgent } from "./rooms/[roomId]/agents/[agentId]/route";
import { GET as exportEvents } from "./rooms/[roomId]/events/export/route";
import { GET as browseEvents } from "./rooms/[roomId]/events/route";
import { DELETE as deleteRoom, GET as readRoom, PATCH as patchRoom } from "./rooms/[roomId]/route";
import { POST as prune } from "./rooms/prune/route";
import { GET as listRooms } from "./rooms/route";

const TOKEN = "admin-token-for-room-tests-01";
const admin = { authorization: `Bearer ${TOKEN}` };
const KEY_VARIABLES = ["ADMIN_TOKEN", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"] as const;
const saved: Record<string, string | undefined> = {};

beforeAll(() => {
  for (const key of KEY_VARIABLES) saved[key] = process.env[key];
  process.env.ADMIN_TOKEN = TOKEN;
  // Which providers are configured decides what the dashboard says about each agent.
  delete process.env.OPENAI_API_KEY;
  process.env.ANTHROPIC_API_KEY = "sk-ant-for-tests";
});
afterAll(() => {
  for (const key of KEY_VARIABLES) {
    if (saved[key] === undefined) delete process.env[key];
    else process.env[key] = saved[key];
  }
});

const context = useTestRuntime();
const db = () => context.database.db;
const DAY = 24 * 3_600_000;

type Handler<P extends Record<string, string>> = (request: Request, context: { params: Promise<P> }) => Promise<Response>;
const get = <P extends Record<string, string>>(
  handler: Handler<P>,
  url: string,
  routeParams: P = {} as P,
  headers: Record<string, string> = admin,
) => call(handler, { url, method: "GET", params: routeParams, headers });
const send = <P extends Record<string, string>>(
  handler: Handler<P>,
  method: string,
  url: string,
  routeParams: P,
  body: unknown,
  headers: Record<string, string> = admin,
) => call(handler, { url, method, params: routeParams, body, headers });

/** Makes a room look untouched for `days` days. */
const idleFor = (roomId: string, days: number) =>
  db()
    .update(rooms)
    .set({ lastActivityAt: new Date(Date.now() - days * DAY) })
    .where(eq(rooms.id, roomId));

describe("the dashboard's room endpoints", () => {
  it("list rooms by latest activity a page at a time, each with its agents, their models and whether they can run here", async () => {
    const made = [];
    for (let index = 0; index < 5; index++) made.push(await createTestRoom(db()));
    const anthropic = await agentByPersona(context.database, made[0]!.roomId, "songwriter");
    const openai = await agentByPersona(context.database, made[0]!.roomId, "storyteller");
    await db().update(agents).set({ model: "anthropic:claude-sonnet-4-5" }).where(eq(agents.id, anthropic.id));
    await db().update(agents).set({ model: "openai:gpt-5" }).where(eq(agents.id, openai.id));
    await createNode(db(), made[0]!.roomId, alice, { text: "newest", x: 0, y: 0 });

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Awaited<ReturnType<typeof call>> = await get(listRooms, `/api/admin/rooms?limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      expect(page.status).toBe(200);
      seen.push(...page.body.rooms.map((room: { id: string }) => room.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toHaveLength(5);
    expect(new Set(seen).size).toBe(5);
    expect(seen[0]).toBe(made[0]!.roomId);

    const { body } = await get(listRooms, "/api/admin/rooms?limit=1");
    const [room] = body.rooms;
    expect(room).toMatchObject({ id: made[0]!.roomId, template: "creative-canvas", watching: 0, activeRuns: 0 });
    expect(room.agents).toHaveLength(5);
    const byName = Object.fromEntries(room.agents.map((agent: { name: string }) => [agent.name, agent]));
    expect(byName.Songwriter).toMatchObject({ model: "anthropic:claude-sonnet-4-5", unavailableReason: null });
    expect(byName.Storyteller).toMatchObject({ model: "openai:gpt-5", unavailableReason: "OPENAI_API_KEY is not set on the server." });
    expect(byName["Scene Painter"].unavailableReason).toBeNull();

    await send(patchRoom, "PATCH", "/x", { roomId: made[1]!.roomId }, { title: "The 100% _odd_ room" });
    const found = await get(listRooms, `/api/admin/rooms?q=${encodeURIComponent("100% _odd")}`);
    expect(found.body.rooms.map((each: { id: string }) => each.id)).toEqual([made[1]!.roomId]);
    expect((await get(listRooms, "/api/admin/rooms?q=nothing-like-it")).body.rooms).toEqual([]);
    await idleFor(made[4]!.roomId, 40);
    const idle = await get(listRooms, "/api/admin/rooms?idle_days=30");
    expect(idle.body.rooms.map((each: { id: string }) => each.id)).toEqual([made[4]!.roomId]);
    for (const query of ["limit=0", "idle_days=0", "cursor=zzz", "sort=title"]) {
      expect((await get(listRooms, `/api/admin/rooms?${query}`)).status, query).toBe(400);
    }
  });

  it("open a room: settings, agents with their system prompts, watchers, runs by status and what they spent", async () => {
    const { roomId } = await createTestRoom(db(), { max_steps: 7, daily_cost_budget_usd: 2 });
    const songwriter = await agentByPersona(context.database, roomId, "songwriter");
    await startAgentRun(db(), roomId, { agentId: songwriter.id }, alice);
    // What the Songwriter's shadow spent today, and an agent of another room.
    await db().execute(addUsage({ agentId: songwriter.id }, { calls: 1, inputTokens: 100, outputTokens: 20, costUsd: 0.5 }));
    const elsewhere = await createTestRoom(db());
    await db().execute(
      addUsage(
        { agentId: (await agentByPersona(context.database, elsewhere.roomId, "songwriter")).id },
        { calls: 1, inputTokens: 7, outputTokens: 7, costUsd: 7 },
      ),
    );
    await db()
      .insert(presence)
      .values({ connectionId: crypto.randomUUID(), roomId, instanceId: "test-viewer", seatId: null, lastSeenAt: new Date() });
    const { status, body } = await get(readRoom, `/api/admin/rooms/${roomId}`, { roomId });
    expect(status).toBe(200);
    expect(body.room).toMatchObject({ id: roomId, watching: 1, activeRuns: 1, settings: { max_steps: 7 } });
    expect(body.room.runs).toMatchObject({ queued: 1, running: 0, succeeded: 0, failed: 0 });
    expect(body.room.spend).toMatchObject({
      today: { calls: 1, inputTokens: 100, outputTokens: 20, costUsd: 0.5 },
      week: { calls: 1 },
      daily: { costUsd: { limit: 2, used: 0.5, left: 1.5 } },
    });
    expect(body.room.agents.find((agent: { id: string }) => agent.id === songwriter.id)).toMatchObject({
      identity: songwriter.identity,
      systemPrompt: songwriter.systemPrompt,
      apiKeyEnv: null,
    });
    expect((await get(readRoom, "/api/admin/rooms/nope", { roomId: "nope" })).status).toBe(404);
    await db().delete(runs).where(eq(runs.roomId, roomId));
  });

  it("change an agent's model and system prompt: the room's log, the room's page and the audit trail show it", async () => {
    const { roomId } = await createTestRoom(db());
    const painter = await agentByPersona(context.database, roomId, "scene-painter");
    const url = `/api/admin/rooms/${roomId}/agents/${painter.id}`;
    const changed = await send(
      patchAgent,
      "PATCH",
      url,
      { roomId, agentId: painter.id },
      { model: "openai:gpt-5", systemPrompt: "Paint in watercolour." },
    );
    expect(changed.status).toBe(200);
    expect(changed.body.agent).toMatchObject({
      id: painter.id,
      model: "openai:gpt-5",
      unavailableReason: "OPENAI_API_KEY is not set on the server.",
    });
    const [row] = await db().select().from(agents).where(eq(agents.id, painter.id));
    expect(row).toMatchObject({ model: "openai:gpt-5", systemPrompt: "Paint in watercolour." });
    const [event] = (await readEventsAfter(db(), roomId, 0)).filter((each) => each.type === "agent.updated");
    expect(event).toMatchObject({
      agent: "admin",
      agent_name: "Admin",
      target_agent: painter.id,
      payload: { changed: ["model", "systemPrompt"], previousModel: painter.model, agent: { model: "openai:gpt-5" } },
    });
    const [record] = await db().select().from(adminActions).where(eq(adminActions.action, "agent.updated"));
    expect(record).toMatchObject({
      roomId,
      details: {
        agentId: painter.id,
        model: { from: painter.model, to: "openai:gpt-5" },
        systemPrompt: { from: painter.systemPrompt, to: "Paint in watercolour." },
      },
    });

    // The same values again change nothing and record nothing.
    await send(patchAgent, "PATCH", url, { roomId, agentId: painter.id }, { model: "openai:gpt-5" });
    expect((await readEventsAfter(db(), roomId, 0)).filter((each) => each.type === "agent.updated")).toHaveLength(1);

    const refused: [unknown, RegExp][] = [
      [{ model: "nowhere:model" }, /model: Unknown model provider "nowhere"/],
      [{ model: "openai:" }, /names no model/],
      [{ model: "" }, /model: The model cannot be empty/],
      [{}, /Nothing to change/],
      [{ systemPrompt: "x".repeat(8001) }, /systemPrompt: System prompts are limited to 8000 characters/],
      [{ model: "openai:gpt-5", colour: "red" }, /unknown field\(s\) colour/],
    ];
    for (const [body, reason] of refused) {
      const answer = await send(patchAgent, "PATCH", url, { roomId, agentId: painter.id }, body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error.message).toMatch(reason);
    }
    const [unchanged] = await db().select().from(agents).where(eq(agents.id, painter.id));
    expect(unchanged).toEqual(row);
    const other = await createTestRoom(db());
    expect((await send(patchAgent, "PATCH", "/x", { roomId: other.roomId, agentId: painter.id }, { model: "script:x" })).status).toBe(404);
    expect((await send(patchAgent, "PATCH", "/x", { roomId: "nope", agentId: painter.id }, { model: "script:x" })).status).toBe(404);
  });

  it("record a rename and a settings change in the audit trail beside the room's log", async () => {
    const { roomId, room } = await createTestRoom(db());
    await send(patchRoom, "PATCH", "/x", { roomId }, { title: "Renamed by admin", settings: { max_steps: 9 } });
    const records = await db().select().from(adminActions).where(eq(adminActions.roomId, roomId));
    expect(records).toEqual([
      expect.objectContaining({
        action: "room.updated",
        roomTitle: "Renamed by admin",
        summary: `renamed “${room.title}” to “Renamed by admin”; changed max_steps`,
        details: { title: { from: room.title, to: "Renamed by admin" }, settings: { max_steps: { from: 10, to: 9 } } },
      }),
    ]);
  });

  it("record only the settings that changed, with their old and new values, and nothing for a change that changes nothing", async () => {
    const { roomId } = await createTestRoom(db());
    const read = async () => (await get(readRoom, `/api/admin/rooms/${roomId}`, { roomId })).body.room.settings as Record<string, unknown>;
    const recorded = async () => db().select().from(adminActions).where(eq(adminActions.roomId, roomId));
    const logged = async () => (await readEventsAfter(db(), roomId, 0)).length;
    const events = await logged();

    // The dashboard's form sends every setting; three of them differ from what the room has.
    const settings = { ...(await read()), max_steps: 12, broadcast: "agents", daily_cost_budget_usd: 1.5 };
    expect(Object.keys(settings).length).toBeGreaterThan(30);
    expect((await send(patchRoom, "PATCH", "/x", { roomId }, { settings })).status).toBe(200);
    const [record] = await recorded();
    expect(record).toMatchObject({
      action: "room.updated",
      summary: "changed max_steps, broadcast, daily_cost_budget_usd",
      details: {
        settings: {
          max_steps: { from: 10, to: 12 },
          broadcast: { from: "off", to: "agents" },
          daily_cost_budget_usd: { from: null, to: 1.5 },
        },
      },
    });
    expect(await logged()).toBe(events + 1);

    // Nothing to change: no settings, the same values again, the same title. Nothing is written.
    const { room } = (await get(readRoom, `/api/admin/rooms/${roomId}`, { roomId })).body as { room: { title: string } };
    for (const body of [{ settings: {} }, { settings }, { title: room.title }, { title: room.title, settings: { max_steps: 12 } }]) {
      const answer = await send(patchRoom, "PATCH", "/x", { roomId }, body);
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ event: null });
    }
    expect(await recorded()).toHaveLength(1);
    expect(await logged()).toBe(events + 1);
  });

  it("browse a room's event log newest first, a page at a time, by type, sender and correlation id, and export it as JSON Lines", async () => {
    const { roomId } = await createTestRoom(db());
    for (let index = 0; index < 5; index++) await createNode(db(), roomId, alice, { text: `note ${index}`, x: index * 10, y: 0 });
    const songwriter = await agentByPersona(context.database, roomId, "songwriter");
    const run = await startAgentRun(db(), roomId, { agentId: songwriter.id }, alice);
    const all = await readEventsAfter(db(), roomId, 0);
    const url = `/api/admin/rooms/${roomId}/events`;

    const seqs: number[] = [];
    let before: number | null = null;
    do {
      const page: Awaited<ReturnType<typeof call>> = await get(browseEvents, `${url}?limit=3${before ? `&before=${before}` : ""}`, {
        roomId,
      });
      expect(page.status).toBe(200);
      seqs.push(...page.body.events.map((event: { seq: number }) => event.seq));
      before = page.body.nextBefore;
    } while (before);
    expect(seqs).toEqual(all.map((event) => event.seq).reverse());

    const nodes = await get(browseEvents, `${url}?type=node.created`, { roomId });
    expect(nodes.body.events.map((event: { payload: { node: { text: string } } }) => event.payload.node.text)).toEqual([
      "note 4",
      "note 3",
      "note 2",
      "note 1",
      "note 0",
    ]);
    const byAlice = await get(browseEvents, `${url}?agent=${encodeURIComponent(alice.id)}`, { roomId });
    expect(byAlice.body.events.every((event: { agent: string }) => event.agent === alice.id)).toBe(true);
    expect(byAlice.body.events).toHaveLength(6);
    const workflow = await get(browseEvents, `${url}?correlation_id=${run.correlationId}`, { roomId });
    expect(workflow.body.events.map((event: { type: string }) => event.type)).toEqual(["run.queued"]);

    const exported = await exportEvents(jsonRequest(`${url}/export?type=node.created`, "GET", undefined, admin), params({ roomId }));
    expect(exported.headers.get("content-type")).toMatch(/ndjson/);
    expect(exported.headers.get("content-disposition")).toMatch(/attachment/);
    const lines = (await exported.text())
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines.map((event) => event.payload.node.text)).toEqual(["note 0", "note 1", "note 2", "note 3", "note 4"]);
    const everything = await exportEvents(jsonRequest(`${url}/export`, "GET", undefined, admin), params({ roomId }));
    expect((await everything.text()).trim().split("\n")).toHaveLength(all.length);

    for (const query of ["type=node.exploded", "limit=500", "before=0", "after=3"]) {
      const answer = await get(browseEvents, `${url}?${query}`, { roomId });
      expect(answer.status, query).toBe(400);
    }
    expect((await get(browseEvents, `${url}?type=node.exploded`, { roomId })).body.error.message).toMatch(
      /type must be one of the event types/,
    );
    expect((await exportEvents(jsonRequest(`${url}/export?type=nope`, "GET", undefined, admin), params({ roomId }))).status).toBe(400);
    expect((await get(browseEvents, "/x", { roomId: "nope" })).status).toBe(404);
  });

  it("prune rooms idle for more than N days, sparing rooms someone watches or with runs under way, and keep the record after the rooms are gone", async () => {
    const stale = await createTestRoom(db());
    const watched = await createTestRoom(db());
    const busy = await createTestRoom(db());
    const recent = await createTestRoom(db());
    await idleFor(recent.roomId, 2);
    for (const each of [stale, watched, busy]) await idleFor(each.roomId, 60);
    await db().insert(presence).values({
      connectionId: crypto.randomUUID(),
      roomId: watched.roomId,
      instanceId: "test-viewer",
      seatId: null,
      lastSeenAt: new Date(),
    });
    const agent = await agentByPersona(context.database, busy.roomId, "songwriter");
    await startAgentRun(db(), busy.roomId, { agentId: agent.id }, alice);
    await idleFor(busy.roomId, 60);
    // Rooms left idle by the earlier tests count too.
    const idleBefore = await get(listRooms, "/api/admin/rooms?idle_days=30&limit=100");
    const expected = idleBefore.body.rooms
      .map((room: { id: string }) => room.id)
      .filter((id: string) => id !== watched.roomId && id !== busy.roomId);
    expect(expected).toContain(stale.roomId);

    const preview = await send(prune, "POST", "/x", {}, { idleDays: 30, dryRun: true });
    expect(preview.status).toBe(200);
    expect(preview.body).toMatchObject({ dryRun: true, count: expected.length, idleDays: 30 });
    expect(preview.body.rooms.map((room: { id: string }) => room.id).sort()).toEqual([...expected].sort());
    expect(await db().select().from(rooms).where(inArray(rooms.id, expected))).toHaveLength(expected.length);

    for (const body of [{ idleDays: 0 }, { idleDays: 1.5 }, {}, { idleDays: 30, everything: true }, { idleDays: "30" }]) {
      const answer = await send(prune, "POST", "/x", {}, body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
    }
    expect((await send(prune, "POST", "/x", {}, { idleDays: 30 }, {})).status).toBe(401);
    expect(await db().select().from(rooms).where(inArray(rooms.id, expected))).toHaveLength(expected.length);

    const pruned = await send(prune, "POST", "/x", {}, { idleDays: 30 });
    expect(pruned.body).toMatchObject({ dryRun: false, count: expected.length });
    expect(await db().select().from(rooms).where(inArray(rooms.id, expected))).toHaveLength(0);
    const kept = await db()
      .select({ id: rooms.id })
      .from(rooms)
      .where(inArray(rooms.id, [watched.roomId, busy.roomId, recent.roomId]));
    expect(kept).toHaveLength(3);
    const [record] = await db().select().from(adminActions).where(eq(adminActions.action, "rooms.pruned"));
    expect(record!.summary).toBe(`pruned ${expected.length} rooms idle for more than 30 days`);
    expect((record!.details.rooms as { id: string; title: string }[]).map((room) => room.id).sort()).toEqual([...expected].sort());
    expect((record!.details.rooms as { title: string }[]).map((room) => room.title)).toContain(stale.room.title);
  });

  it("keep the record of a deleted room in the audit trail", async () => {
    const { roomId, room } = await createTestRoom(db());
    expect((await send(deleteRoom, "DELETE", "/x", { roomId }, undefined)).status).toBe(204);
    const [record] = await db().select().from(adminActions).where(eq(adminActions.action, "room.deleted"));
    expect(record).toMatchObject({
      roomId,
      roomTitle: room.title,
      actor: "admin",
      summary: expect.stringContaining(`deleted “${room.title}”`),
    });
    const listed = await get(audit, `/api/admin/audit?room=${roomId}`);
    expect(listed.body.actions).toEqual([expect.objectContaining({ action: "room.deleted", roomTitle: room.title, roomExists: false })]);
  });

  it("refuse everyone else: 401 without credentials, 403 with wrong ones, changing nothing", async () => {
    const { roomId } = await createTestRoom(db());
    await idleFor(roomId, 400);
    const painter = await agentByPersona(context.database, roomId, "scene-painter");
    for (const [headers, expected] of [
      [{}, 401],
      [{ authorization: "Bearer wrong-token-wrong-token" }, 403],
    ] as const) {
      expect((await get(listRooms, "/api/admin/rooms", {}, fromOwnAddress(headers))).status).toBe(expected);
      expect((await get(readRoom, "/x", { roomId }, fromOwnAddress(headers))).status).toBe(expected);
      expect((await get(browseEvents, "/x", { roomId }, fromOwnAddress(headers))).status).toBe(expected);
      expect((await exportEvents(jsonRequest("/x", "GET", undefined, fromOwnAddress(headers)), params({ roomId }))).status).toBe(expected);
      expect(
        (await send(patchAgent, "PATCH", "/x", { roomId, agentId: painter.id }, { model: "openai:gpt-5" }, fromOwnAddress(headers))).status,
      ).toBe(expected);
      expect((await send(prune, "POST", "/x", {}, { idleDays: 1 }, fromOwnAddress(headers))).status).toBe(expected);
    }
    const [still] = await db().select().from(agents).where(eq(agents.id, painter.id));
    expect(still!.model).toBe(painter.model);
    expect(await db().select().from(rooms).where(eq(rooms.id, roomId))).toHaveLength(1);
  });
});
