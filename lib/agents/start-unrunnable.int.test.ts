import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { agentNotes, agents, brainstorms, buildReviews, rooms, runs } from "@/db/schema";
import { startAgentRun } from "@/lib/agents/start-agent-run";
import { readEventsAfter } from "@/lib/events/read-events";
import { createRoom } from "@/lib/rooms/create-room";
import { parseRoomSettings } from "@/lib/rooms/room-settings";
import { agentByPersona } from "@/test/agents";
import { alice, createTestRoom } from "@/test/fixtures";
import { call, cookieFrom, fromOwnAddress } from "@/test/http";
import { useOfflineServer } from "@/test/offline-server";
import { useTestRuntime } from "@/test/test-runtime";
import { POST as startBrainstormRoute } from "@/app/api/rooms/[roomId]/brainstorms/route";
import { POST as startReviewRoute } from "@/app/api/rooms/[roomId]/build-reviews/route";
import { POST as sendRoute } from "@/app/api/rooms/[roomId]/commands/route";
import { POST as startRun } from "@/app/api/rooms/[roomId]/runs/route";
import { POST as takeSeat } from "@/app/api/rooms/[roomId]/seat/route";
import { POST as startRoomRoute } from "@/app/api/rooms/[roomId]/start/route";

const context = useTestRuntime();
// No provider is configured here, whatever the shell has set.
useOfflineServer();

const UNRUNNABLE = "openai:gpt-4o";

async function seated(roomId: string, headers: Record<string, string>) {
  const seat = await call(takeSeat, { url: "/x", method: "POST", params: { roomId }, body: { displayName: "Ann" }, headers });
  return cookieFrom(seat.headers.get("set-cookie"));
}

/** Puts the agent of `persona` on a model this server cannot run; gives back a way to put it back. */
async function unrunnable(roomId: string, persona: string) {
  const agent = await agentByPersona(context.database, roomId, persona);
  await context.database.db.update(agents).set({ model: UNRUNNABLE }).where(eq(agents.id, agent.id));
  return {
    agent,
    restore: () => context.database.db.update(agents).set({ model: agent.model }).where(eq(agents.id, agent.id)),
  };
}

/** Everything a refused start could have written in the room. */
async function written(roomId: string) {
  const { db } = context.database;
  const [room] = await db.select().from(rooms).where(eq(rooms.id, roomId));
  return {
    events: (await readEventsAfter(db, roomId, 0)).length,
    runs: (await db.select().from(runs).where(eq(runs.roomId, roomId))).length,
    notes: (await db.select().from(agentNotes).where(eq(agentNotes.roomId, roomId))).length,
    reviews: (await db.select().from(buildReviews).where(eq(buildReviews.roomId, roomId))).length,
    brainstorms: (await db.select().from(brainstorms).where(eq(brainstorms.roomId, roomId))).length,
    started: parseRoomSettings(room!.settings).scheduler_enabled,
  };
}

function expectRefused(response: { status: number; body: { error: { code: string; message: string } } }, name: string) {
  expect(response.status).toBe(409);
  expect(response.body.error.code).toBe("model_unavailable");
  expect(response.body.error.message.startsWith(`${name} cannot run on this server: `)).toBe(true);
  expect(response.body.error.message).toMatch(/OPENAI_API_KEY/);
}

describe("starting an agent whose model cannot run here", () => {
  it("is refused with a 409 saying why, queuing nothing, while a runnable agent starts", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const seat = await call(takeSeat, { url: "/x", method: "POST", params: { roomId }, body: { displayName: "Ann" } });
    const cookie = cookieFrom(seat.headers.get("set-cookie"));
    const painter = await agentByPersona(context.database, roomId, "scene-painter");
    await context.database.db.update(agents).set({ model: "openai:gpt-4o" }).where(eq(agents.id, painter.id));
    const before = (await readEventsAfter(context.database.db, roomId, 0)).length;
    const start = (agentId: string) =>
      call(startRun, { url: "/x", method: "POST", params: { roomId }, body: { agentId, prompt: "Paint the storm" }, cookie });

    const refused = await start(painter.id);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe("model_unavailable");
    expect(refused.body.error.message).toMatch(/^Scene Painter cannot run on this server: .*OPENAI_API_KEY/);
    expect(await context.database.db.select().from(runs).where(eq(runs.roomId, roomId))).toEqual([]);
    expect((await readEventsAfter(context.database.db, roomId, 0)).length).toBe(before);

    const songwriter = await agentByPersona(context.database, roomId, "songwriter");
    expect((await start(songwriter.id)).status).toBe(201);
  });

  it("refuses a build review while its Reviewer cannot run, writing nothing, and starts it once it can", async () => {
    const headers = fromOwnAddress();
    const { room } = await createRoom(context.database.db, { title: "Review", template: "build-review" });
    const cookie = await seated(room.id, headers);
    const { agent: reviewer, restore } = await unrunnable(room.id, "reviewer");
    const before = await written(room.id);
    const start = () =>
      call(startReviewRoute, { url: "/x", method: "POST", params: { roomId: room.id }, body: { task: "Count words" }, cookie, headers });

    expectRefused(await start(), reviewer.name);
    expect(await written(room.id)).toEqual(before);

    await restore();
    const started = await start();
    expect(started.status).toBe(201);
    expect((await written(room.id)).runs).toBe(1);
  });

  it("refuses a brainstorm while one of its personas cannot run, writing nothing, and starts it once it can", async () => {
    const headers = fromOwnAddress();
    const { room } = await createRoom(context.database.db, { title: "Ideas", template: "brainstorm" });
    const cookie = await seated(room.id, headers);
    // Not the opener: the Synthesizer works stages later, where the brainstorm would stop.
    const { agent: synthesizer, restore } = await unrunnable(room.id, "synthesizer");
    const before = await written(room.id);
    const start = () =>
      call(startBrainstormRoute, {
        url: "/x",
        method: "POST",
        params: { roomId: room.id },
        body: { problem: "Reduce food waste in our office cafeteria" },
        cookie,
        headers,
      });

    expectRefused(await start(), synthesizer.name);
    expect(await written(room.id)).toEqual(before);

    await restore();
    expect((await start()).status).toBe(201);
    expect((await written(room.id)).brainstorms).toBe(1);
  });

  it("refuses to start a room's team while one of its agents cannot run, writing nothing, whatever the room's template", async () => {
    const headers = fromOwnAddress();
    const cases = [
      { template: "creative-canvas", persona: "songwriter" },
      { template: "build-review", persona: "coder" },
      { template: "brainstorm", persona: "contrarian" },
    ];
    for (const { template, persona } of cases) {
      const { room } = await createRoom(
        context.database.db,
        { title: template, template },
        { settings: { task: "A lighthouse keeper's week" } },
      );
      const cookie = await seated(room.id, headers);
      const { agent, restore } = await unrunnable(room.id, persona);
      const before = await written(room.id);
      const start = () => call(startRoomRoute, { url: "/x", method: "POST", params: { roomId: room.id }, cookie, headers });

      expectRefused(await start(), agent.name);
      expect(await written(room.id), template).toEqual(before);

      await restore();
      expect((await start()).status, template).toBe(201);
      expect((await written(room.id)).runs, template).toBe(1);
    }
  });

  it("refuses an @message that would start a run of an agent that cannot run, writing nothing; one for its queued run is kept", async () => {
    const headers = fromOwnAddress();
    const { roomId } = await createTestRoom(context.database.db);
    const cookie = await seated(roomId, headers);
    const say = (text: string) => call(sendRoute, { url: "/x", method: "POST", params: { roomId }, body: { text }, cookie, headers });
    // The Songwriter's run was queued while its model could run.
    const songwriter = await agentByPersona(context.database, roomId, "songwriter");
    const queued = await startAgentRun(context.database.db, roomId, { agentId: songwriter.id, prompt: "Write" }, alice);
    await unrunnable(roomId, "songwriter");
    const { agent: painter } = await unrunnable(roomId, "scene-painter");
    const before = await written(roomId);

    expectRefused(await say(`@${painter.name} paint the storm`), painter.name);
    expect(await written(roomId)).toEqual(before);

    const toQueued = await say(`@${songwriter.name} more gulls`);
    expect(toQueued.status).toBe(201);
    expect(toQueued.body.command).toMatchObject({ agentId: songwriter.id, delivery: "queued_run", runId: queued.id });
    const storyteller = await agentByPersona(context.database, roomId, "storyteller");
    const started = await say(`@${storyteller.name} begin at the harbour`);
    expect(started.status).toBe(201);
    expect(started.body.command).toMatchObject({ agentId: storyteller.id, delivery: "new_run" });
    expect((await written(roomId)).runs).toBe(2);
  });
});
