import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agents, runs } from "@/db/schema";
import { startAgentRun } from "@/lib/agents/start-agent-run";
import { askOthers } from "@/lib/broadcast/ask-others";
import { RoomBus } from "@/lib/realtime/bus";
import { createRoom } from "@/lib/rooms/create-room";
import { startTestWorker } from "@/test/agents";
import { type ChatRequest, startChatServer } from "@/test/chat-server";
import { alice, eventually } from "@/test/fixtures";
import { standInResolver } from "@/test/stand-in-resolver";
import { type TestDatabase, createTestDatabase } from "@/test/test-database";

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database.destroy();
});

/** Words that belong to one template's craft: no other template's agents may read them. */
const CREATIVE = /lyric|verse|scene painter|creative team|illustrate/i;
const CODE_REVIEW = /\bcoder\b|code review/i;

/**
 * Starts one run of every agent of a room made from `template`, each on a stand-in provider
 * that answers at once, and returns every request body the provider received for them.
 */
async function requestsOf(template: string): Promise<ChatRequest[]> {
  const server = await startChatServer(() => ({ text: "Noted." }));
  const worker = await startTestWorker(database, { resolveModel: standInResolver(server), onError: () => {} });
  try {
    const { room, agents: team } = await createRoom(database.db, { title: `A ${template} room`, template });
    await database.db.update(agents).set({ model: "openai-compatible:stand-in" }).where(eq(agents.roomId, room.id));
    const started: string[] = [];
    for (const agent of team) {
      const run = await startAgentRun(
        database.db,
        room.id,
        { agentId: agent.id, prompt: "Say in one sentence what you will do next." },
        alice,
      );
      started.push(run.id);
    }
    await eventually(async () => {
      const rows = await database.db.select().from(runs).where(eq(runs.roomId, room.id));
      expect(rows.map((row) => row.status)).toEqual(started.map(() => "succeeded"));
    }, 30_000);
    expect(server.requests.length).toBeGreaterThanOrEqual(team.length);
    return server.requests;
  } finally {
    await worker.stop();
    await server.close();
  }
}

describe("each template's agents read only their own template's instructions", () => {
  it("a Creative canvas agent reads its craft and nothing of code review", async () => {
    const bodies = (await requestsOf("creative-canvas")).map((request) => JSON.stringify(request));
    expect(bodies.join("\n")).toMatch(/ask the Scene Painter to illustrate your lyrics/);
    for (const body of bodies) {
      expect(body).not.toMatch(/\bcoder\b|code review|reviewer/i);
      // The sections handed to the offline model stay out of what a provider is sent.
      expect(body).not.toMatch(/"parley"/);
    }
  }, 60_000);

  it("a Build review agent reads nothing of the creative canvas", async () => {
    const bodies = (await requestsOf("build-review")).map((request) => JSON.stringify(request));
    expect(bodies.join("\n")).toMatch(/You are Reviewer, the Code reviewer of a team working together/);
    for (const body of bodies) expect(body).not.toMatch(CREATIVE);
  }, 60_000);

  it("a Brainstorm agent reads nothing of the creative canvas nor of code review", async () => {
    const bodies = (await requestsOf("brainstorm")).map((request) => JSON.stringify(request));
    expect(bodies.length).toBeGreaterThan(10);
    for (const body of bodies) {
      expect(body).not.toMatch(CREATIVE);
      // The brainstorm's own Architect is its proposal's reviewer: only code review is another template's.
      expect(body).not.toMatch(CODE_REVIEW);
    }
  }, 90_000);
});

/**
 * Has the first agent of a room made from `template` ask the others a question, each shadow
 * answering on the stand-in provider, and returns every request body the provider received.
 */
async function shadowRequestsOf(template: string): Promise<ChatRequest[]> {
  const server = await startChatServer(() => ({ text: "Start with the smallest part." }));
  const bus = new RoomBus(database);
  await bus.start();
  try {
    const { room, agents: team } = await createRoom(
      database.db,
      { title: `A ${template} room`, template },
      { settings: { broadcast: "agents" } },
    );
    await database.db.update(agents).set({ model: "openai-compatible:stand-in" }).where(eq(agents.roomId, room.id));
    const [asker] = await database.db.select().from(agents).where(eq(agents.id, team[0]!.id));
    const result = await askOthers(
      { database, bus, resolveModel: standInResolver(server), pollMs: 100 },
      { roomId: room.id, asker: asker!, runId: null, correlationId: `shadows_${template}`, question: "What should we do first?" },
    );
    expect(result.status).toBe("complete");
    expect(server.requests.length).toBe(team.length - 1);
    return server.requests;
  } finally {
    await bus.stop();
    await server.close();
  }
}

describe("each template's shadows answer in their own template's words", () => {
  it("a Creative canvas shadow is told it is one of a creative team", async () => {
    const bodies = (await shadowRequestsOf("creative-canvas")).map((request) => JSON.stringify(request));
    for (const body of bodies) expect(body).toMatch(/of a creative team working together/);
  }, 60_000);

  it("a Build review shadow reads nothing of the creative canvas", async () => {
    const bodies = (await shadowRequestsOf("build-review")).map((request) => JSON.stringify(request));
    for (const body of bodies) {
      expect(body).toMatch(/Answering a question from a teammate/);
      expect(body).not.toMatch(CREATIVE);
    }
  }, 60_000);
});
