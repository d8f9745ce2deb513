import { asc, eq } from "drizzle-orm";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { agents, buildReviews, canvasNodes, events, rooms, runs } from "@/db/schema";
import { readCodeVersions } from "@/lib/build-review/read-code-versions";
import { PUT as questionModeRoute } from "@/app/api/rooms/[roomId]/question-mode/route";
import { POST as takeSeatRoute } from "@/app/api/rooms/[roomId]/seat/route";
import { POST as startRoute } from "@/app/api/rooms/[roomId]/start/route";
import { POST as createRoute } from "@/app/api/rooms/route";
import { startTestWorker } from "@/test/agents";
import { eventually } from "@/test/fixtures";
import { call, cookieFrom, fromOwnAddress } from "@/test/http";
import { useOfflineServer } from "@/test/offline-server";
import { useTestRuntime } from "@/test/test-runtime";
import { createRoom } from "./create-room";
import { parseRoomSettings } from "./room-settings";
import { titleFromTask } from "./create-room-for-task";

const context = useTestRuntime();
// Anyone may create rooms here: the shell running the tests may hold a paid provider's key.
useOfflineServer();
const TOKEN = "create-room-for-task-admin-token-0123456789";
beforeEach(() => {
  vi.stubEnv("ADMIN_TOKEN", TOKEN);
});

const create = (body: unknown) => call(createRoute, { url: "/api/rooms", method: "POST", params: {}, body, headers: fromOwnAddress() });
const seatIn = async (roomId: string, displayName: string) =>
  cookieFrom(
    (
      await call(takeSeatRoute, { url: "/x", method: "POST", params: { roomId }, body: { displayName }, headers: fromOwnAddress() })
    ).headers.get("set-cookie"),
  );
const start = (roomId: string, cookie?: string) =>
  call(startRoute, { url: "/x", method: "POST", params: { roomId }, ...(cookie ? { cookie } : {}), headers: fromOwnAddress() });
const switchQuestions = (roomId: string, body: unknown, cookie?: string, headers: Record<string, string> = {}) =>
  call(questionModeRoute, { url: "/x", method: "PUT", params: { roomId }, body, ...(cookie ? { cookie } : {}), headers });

async function nodesOf(roomId: string) {
  return context.database.db.select().from(canvasNodes).where(eq(canvasNodes.roomId, roomId)).orderBy(asc(canvasNodes.createdAt));
}

describe("creating a room on a task", () => {
  it("makes the title from the task, keeps the task as the room's, and seats a named creator as its owner", async () => {
    const created = await create({
      task: "write a lullaby for a lighthouse keeper. Keep it short",
      template: "creative-canvas",
      displayName: "Ada",
    });
    expect(created.status).toBe(201);
    expect(created.body.room).toMatchObject({
      title: "Write a lullaby for a lighthouse keeper",
      task: "write a lullaby for a lighthouse keeper. Keep it short",
    });
    expect(created.body.seat).toMatchObject({ displayName: "Ada" });
    expect(created.body.started).toBeNull();
    const [room] = await context.database.db.select().from(rooms).where(eq(rooms.id, created.body.room.id));
    expect(room!.ownerSeatId).toBe(created.body.seat.id);
    expect(parseRoomSettings(room!.settings)).toMatchObject({
      task: "write a lullaby for a lighthouse keeper. Keep it short",
      scheduler_enabled: false,
    });
    expect(created.headers.get("set-cookie")).toMatch(/^parley_seat_[\w-]+=[\w-]+; Path=\/; HttpOnly; SameSite=Lax/);
    // Only a title: the title is the task.
    const titled = await create({ title: "A lullaby for a lighthouse keeper", template: "creative-canvas" });
    expect(titled.body.room).toMatchObject({ title: "A lullaby for a lighthouse keeper", task: "A lullaby for a lighthouse keeper" });
    expect(titled.body.seat).toBeNull();
    expect(titled.headers.get("set-cookie")).toBeNull();
    expect(titleFromTask(`${"a very long task ".repeat(12)}`).length).toBeLessThanOrEqual(120);
  });

  it("answers bad input with 400 and the reason, creating nothing", async () => {
    const before = (await context.database.db.select().from(rooms)).length;
    const cases: [unknown, RegExp][] = [
      [{ template: "creative-canvas" }, /task: Say what the team should work on/],
      [{ task: "ab", template: "creative-canvas" }, /task: Say in a few words what the team should work on/],
      [{ task: "x".repeat(1001), template: "creative-canvas" }, /task: A task is limited to 1000 characters/],
      [
        { task: "A lighthouse", template: "creative-canvas", start: true },
        /start: Take a seat \(a display name\) to start the team at once/,
      ],
      [{ task: "A lighthouse", template: "creative-canvas", displayName: " " }, /displayName: Choose a display name/],
      [{ task: "A lighthouse", template: "no-such-template" }, /Unknown template "no-such-template"/],
      [{ task: 7, template: "creative-canvas" }, /task: /],
    ];
    for (const [body, reason] of cases) {
      const response = await create(body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error.message).toMatch(reason);
    }
    expect((await context.database.db.select().from(rooms)).length).toBe(before);
  });

  it("starts a Creative canvas team on the task: its first piece names the task, and it starts once", async () => {
    const worker = await startTestWorker(context.database);
    try {
      const created = await create({ task: "A lullaby for a lighthouse keeper", template: "creative-canvas" });
      const roomId = created.body.room.id;
      // A spectator may not start it; a seated person may, once.
      expect((await start(roomId)).status).toBe(403);
      const cookie = await seatIn(roomId, "Ben");
      const started = await start(roomId, cookie);
      expect(started.status).toBe(201);
      expect(started.body.started).toMatchObject({ kind: "canvas", runId: expect.any(String) });
      const again = await start(roomId, cookie);
      expect(again.status).toBe(409);
      expect(again.body.error.message).toBe("The team is already at work in this room.");
      const [room] = await context.database.db.select().from(rooms).where(eq(rooms.id, roomId));
      expect(parseRoomSettings(room!.settings).scheduler_enabled).toBe(true);
      const first = await eventually(async () => {
        const [node] = await nodesOf(roomId);
        expect(node).toBeDefined();
        return node!;
      }, 20_000);
      expect(first.text).toMatch(/lullaby|lighthouse|keeper/i);
      const [run] = await context.database.db.select().from(runs).where(eq(runs.id, started.body.started.runId));
      expect(run!.prompt).toMatch(/^A lullaby for a lighthouse keeper\n\nYour part: /);
    } finally {
      await worker.stop();
    }
  });

  it("starts a Build review on the task at once for a creator who takes a seat: the Coder writes the language and function asked for", async () => {
    const worker = await startTestWorker(context.database);
    try {
      const task = "Write a Python function word_count(s) that returns how many words s has";
      const created = await create({ task, template: "build-review", displayName: "Ada", start: true });
      expect(created.status).toBe(201);
      expect(created.body.started).toMatchObject({ kind: "build-review", reviewId: expect.any(String) });
      const roomId = created.body.room.id;
      const review = await eventually(async () => {
        const [row] = await context.database.db.select().from(buildReviews).where(eq(buildReviews.roomId, roomId));
        expect(row!.status).toBe("approved");
        return row!;
      }, 25_000);
      expect(review.task).toBe(task);
      const { versions } = await readCodeVersions(context.database.db, roomId, review.id);
      expect(versions.length).toBeGreaterThan(0);
      for (const version of versions) {
        expect(version.language).toBe("python");
        expect(version.code).toMatch(/^def word_count\(s: str\) -> int:$/m);
      }
      const brief = (await nodesOf(roomId)).find((node) => node.kind === "brief");
      expect(brief!.text).toContain('word_count("Hello, world!") → 2');
      // Started already: pressing Start again is refused.
      expect((await start(roomId, cookieFrom(created.headers.get("set-cookie")))).status).toBe(409);
    } finally {
      await worker.stop();
    }
  });

  it("starts a Brainstorm on the task: the first framing names the problem", async () => {
    const worker = await startTestWorker(context.database);
    try {
      const created = await create({
        task: "Reduce food waste in our office cafeteria",
        template: "brainstorm",
        displayName: "Ada",
        start: true,
      });
      expect(created.body.started).toMatchObject({ kind: "brainstorm", brainstormId: expect.any(String) });
      const framing = await eventually(async () => {
        const node = (await nodesOf(created.body.room.id)).find((candidate) => candidate.kind === "framing");
        expect(node).toBeDefined();
        return node!;
      }, 25_000);
      expect(framing.text).toMatch(/food waste|cafeteria/i);
    } finally {
      await worker.stop();
    }
  });

  it("refuses to start a room that has no task", async () => {
    const { room } = await createRoom(context.database.db, { title: "No task", template: "creative-canvas" });
    const response = await start(room.id, await seatIn(room.id, "Ada"));
    expect(response.status).toBe(400);
    expect(response.body.error.message).toMatch(/has no task to start on/);
    expect(await context.database.db.select().from(runs).where(eq(runs.roomId, room.id))).toEqual([]);
  });
});

describe("who answers the agents' questions", () => {
  it("is switched by the room's owner or a seated admin; anyone else is refused and nothing changes", async () => {
    const created = await create({ task: "A lullaby for a lighthouse keeper", template: "creative-canvas", displayName: "Ada" });
    const roomId = created.body.room.id;
    const owner = cookieFrom(created.headers.get("set-cookie"));
    const guest = await seatIn(roomId, "Ben");
    const settingsNow = async () => {
      const [room] = await context.database.db.select().from(rooms).where(eq(rooms.id, roomId));
      return parseRoomSettings(room!.settings);
    };

    const switched = await switchQuestions(roomId, { mode: "human" }, owner);
    expect(switched).toMatchObject({ status: 200, body: { mode: "human" } });
    expect((await settingsNow()).broadcast).toBe("human");
    const logged = await context.database.db.select().from(events).where(eq(events.roomId, roomId)).orderBy(asc(events.seq));
    expect(logged.at(-1)).toMatchObject({ type: "room.updated", payload: { settings: expect.objectContaining({ broadcast: "human" }) } });

    const refused = await switchQuestions(roomId, { mode: "off" }, guest);
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toMatch(/Only the person who created this room, or an admin/);
    expect((await switchQuestions(roomId, { mode: "off" })).status).toBe(403);
    const bad = await switchQuestions(roomId, { mode: "everyone" }, owner);
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/mode: one of "off", "agents" or "human"/);
    expect((await settingsNow()).broadcast).toBe("human");

    // A seated admin may, too.
    const asAdmin = await switchQuestions(roomId, { mode: "agents" }, guest, { authorization: `Bearer ${TOKEN}` });
    expect(asAdmin).toMatchObject({ status: 200, body: { mode: "agents" } });
    expect((await settingsNow()).broadcast).toBe("agents");
  });
});

describe("knowledge between two people's rooms", () => {
  it("carries none of room A's task, messages or dialogue into room B's prompts", async () => {
    const worker = await startTestWorker(context.database);
    try {
      const taskA = "A lullaby for a lighthouse keeper";
      const a = await create({ task: taskA, template: "creative-canvas", displayName: "Ada", start: true });
      const roomA = a.body.room.id;
      const ada = cookieFrom(a.headers.get("set-cookie"));
      const { POST: commandRoute } = await import("@/app/api/rooms/[roomId]/commands/route");
      const sent = await call(commandRoute, {
        url: "/x",
        method: "POST",
        params: { roomId: roomA },
        body: { text: "@Songwriter try a sea shanty about the foghorn" },
        cookie: ada,
      });
      expect(sent.status).toBe(201);
      // Room A's agents work, learn and record their tasks.
      await eventually(async () => {
        const done = await context.database.db.select().from(runs).where(eq(runs.roomId, roomA));
        expect(done.filter((run) => run.status === "succeeded").length).toBeGreaterThanOrEqual(2);
        expect(done.every((run) => run.status === "succeeded" || run.status === "failed")).toBe(true);
      }, 25_000);
      // The command was followed: the piece made for it is about what it asks.
      const followed = (await nodesOf(roomA)).find((node) => node.text.startsWith("As Ada asked — “try a sea shanty about the foghorn”"));
      expect(followed!.text.split("\n").slice(1).join("\n")).toMatch(/foghorn|shant/i);
      const learned = await context.database.db.select().from(events).where(eq(events.roomId, roomA));
      expect(learned.some((event) => event.type === "knowledge.updated")).toBe(true);
    } finally {
      await worker.stop();
    }

    // Another person's room, of the same template: its agents share identities (and vaults) with room A's.
    const b = await create({ task: "A marching song for a bicycle parade", template: "creative-canvas", displayName: "Ben" });
    const roomB = b.body.room.id;
    const { buildPrompt } = await import("@/lib/agents/build-prompt");
    const { loadPromptContext } = await import("@/lib/agents/load-prompt-context");
    const { startAgentRun } = await import("@/lib/agents/start-agent-run");
    const team = await context.database.db.select().from(agents).where(eq(agents.roomId, roomB));
    const forbidden = /lullaby|lighthouse|keeper|shanty|foghorn|\bAda\b/i;
    let sawKnowledge = false;
    for (const agent of team) {
      const run = await startAgentRun(context.database.db, roomB, { agentId: agent.id }, { id: "human:ben", name: "Ben" });
      const [row] = await context.database.db.select().from(runs).where(eq(runs.id, run.id));
      const loaded = await loadPromptContext(context.database.db, {
        run: row!,
        agent,
        team,
        settings: parseRoomSettings({ task: "A marching song for a bicycle parade", context_token_budget: 50_000 }),
        now: new Date(),
        toolNames: [],
        notes: { roomId: roomB, agentId: agent.id, agentName: agent.name, runId: run.id, step: 0 },
      });
      const { system, prompt } = buildPrompt(loaded);
      expect(`${system}\n${prompt}`, agent.name).not.toMatch(forbidden);
      if (/## Your knowledge\n- (Expertise|Insight)/.test(prompt)) sawKnowledge = true;
    }
    // What crossed is the agents' own general insight and expertise, not nothing at all.
    expect(sawKnowledge).toBe(true);
    const vault = await import("@/app/api/rooms/[roomId]/agents/[agentId]/vault/route");
    for (const agent of team) {
      const read = await call(vault.GET, { url: "/x", method: "GET", params: { roomId: roomB, agentId: agent.id } });
      expect(JSON.stringify(read.body), agent.name).not.toMatch(forbidden);
    }
  });
});
