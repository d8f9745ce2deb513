import { and, eq, isNull } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentNotes, broadcastResponses, broadcasts, runs } from "@/db/schema";
import { startAgentRun } from "@/lib/agents/start-agent-run";
import { readEventsAfter } from "@/lib/events/read-events";
import { agentByPersona, startTestWorker } from "@/test/agents";
import { broadcastDeps, latencyResolver, leaveQuestion, setLatency, testSeat, waitForOpenQuestion } from "@/test/broadcasts";
import { alice, createTestRoom, eventually } from "@/test/fixtures";
import { interceptTransactions } from "@/test/intercept-transactions";
import { MockLanguageModelV4 } from "ai/test";
import { mockResolver, scriptedSteps, setAgentModel, textStep, toolStep } from "@/test/mock-models";
import { type TestDatabase, createTestDatabase } from "@/test/test-database";
import { answerHumanQuestion, skipHumanQuestion } from "./answer-question";
import { askOthers } from "./ask-others";

let database: TestDatabase;
let deps: Awaited<ReturnType<typeof broadcastDeps>>;

beforeAll(async () => {
  database = await createTestDatabase();
  deps = await broadcastDeps(database);
});
afterAll(async () => {
  await deps.stop();
  await database.destroy();
});

async function ask(roomId: string, persona: string, question: string, extra: { targetAgents?: string[]; options?: string[] } = {}) {
  const asker = await agentByPersona(database, roomId, persona);
  return askOthers(deps, { roomId, asker, runId: null, correlationId: `test_${persona}`, question, ...extra });
}

/** A human question whose asker is gone: queued for its turn, and nobody left to take it. */
function leaveWaitingQuestion(roomId: string, persona: string, deadlineAt: Date | null) {
  return leaveQuestion(database, roomId, persona, { mode: "human", status: "waiting_turn", deadlineAt });
}

/** `promise`, or a failure once `ms` have passed: a wait that should end never hangs the test. */
function within<T>(ms: number, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`still waiting after ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

async function statusOf(broadcastId: string) {
  const [row] = await database.db.select().from(broadcasts).where(eq(broadcasts.id, broadcastId));
  return row!.status;
}

describe("ask_others in agents mode", () => {
  it("asks four shadow responders in parallel: the call takes about one responder's time", async () => {
    const { roomId, agents } = await createTestRoom(database.db, { broadcast: "agents" });
    const songwriter = agents.find((agent) => agent.persona === "songwriter")!;
    for (const agent of agents) if (agent.id !== songwriter.id) await setLatency(database, agent.id, 300);
    const started = performance.now();
    const result = await ask(roomId, "songwriter", "Should the verse lean on the rain or on the streetlights?");
    const elapsed = performance.now() - started;
    expect(result.status).toBe("complete");
    expect(result.responses).toHaveLength(4);
    expect(new Set(result.responses.map((response) => response.responder_id))).toEqual(
      new Set(["Idea Weaver", "Scene Painter", "Storyteller", "Creative Curator"]),
    );
    expect(result.responses.every((response) => !response.is_human && response.content.length > 10)).toBe(true);
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(1100);

    const events = await readEventsAfter(database.db, roomId, 0, 500);
    expect(events.filter((event) => event.type === "broadcast.response")).toHaveLength(4);
    const closed = events.find((event) => event.type === "broadcast.closed")!;
    expect(closed.payload).toMatchObject({ status: "complete", responses: 4 });
  });

  it("abandons a responder slower than the timeout and returns the others with status timeout", async () => {
    const { roomId, agents } = await createTestRoom(database.db, { broadcast: "agents", broadcast_timeout: 1 });
    const painter = agents.find((agent) => agent.persona === "scene-painter")!;
    for (const agent of agents)
      if (agent.persona !== "songwriter") await setLatency(database, agent.id, agent.id === painter.id ? 8000 : 50);
    const started = performance.now();
    const result = await ask(roomId, "songwriter", "Quick check: rain or streetlights?");
    const elapsed = performance.now() - started;
    expect(result.status).toBe("timeout");
    expect(result.responses.map((response) => response.responder_id).sort()).toEqual(
      ["Creative Curator", "Idea Weaver", "Storyteller"].sort(),
    );
    expect(elapsed).toBeGreaterThanOrEqual(950);
    expect(elapsed).toBeLessThan(2500);
    const [row] = await database.db.select().from(broadcasts).where(eq(broadcasts.roomId, roomId));
    expect(row!.status).toBe("timeout");
    await new Promise((resolve) => setTimeout(resolve, 300));
    const stored = await database.db.select().from(broadcastResponses).where(eq(broadcastResponses.broadcastId, row!.id));
    expect(stored.map((response) => response.responderId)).not.toContain(painter.id);
  });

  it("does not store an answer, nor leave its note, when its write lands after the broadcast closed", async () => {
    const { roomId } = await createTestRoom(database.db, { broadcast: "agents", broadcast_timeout: 1 });
    const asker = await agentByPersona(database, roomId, "songwriter");
    const painter = await agentByPersona(database, roomId, "scene-painter");
    let answered = false;
    const quick = new MockLanguageModelV4({
      doGenerate: async () => {
        answered = true;
        return {
          content: [{ type: "text", text: "A single warm lamp." }],
          finishReason: { unified: "stop", raw: "stop" },
          usage: { inputTokens: { total: 9, noCache: 9, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 5, text: 5, reasoning: 0 } },
          warnings: [],
        };
      },
    });
    await setAgentModel(database, painter.id, "mock:quick");
    // The answer is in before the deadline, but its write reaches the database only after the close.
    const late = interceptTransactions(database, async () => {
      if (!answered) return;
      answered = false;
      await eventually(async () => {
        const [row] = await database.db.select().from(broadcasts).where(eq(broadcasts.roomId, roomId));
        expect(row!.status).toBe("timeout");
      });
    });
    const result = await askOthers(
      { ...deps, database: late, resolveModel: mockResolver({ quick }) },
      { roomId, asker, runId: null, correlationId: "c", question: "Which light?", targetAgents: ["Scene Painter"] },
    );
    await late.settled();
    expect(result).toEqual({ status: "timeout", responses: [] });
    const [row] = await database.db.select().from(broadcasts).where(eq(broadcasts.roomId, roomId));
    expect(await database.db.select().from(broadcastResponses).where(eq(broadcastResponses.broadcastId, row!.id))).toEqual([]);
    expect(await database.db.select().from(agentNotes).where(eq(agentNotes.agentId, painter.id))).toEqual([]);
    const events = await readEventsAfter(database.db, roomId, 0, 500);
    expect(events.filter((event) => event.type === "broadcast.response")).toEqual([]);
  });

  it("limits active broadcasts per agent with a clear error", async () => {
    const { roomId, agents } = await createTestRoom(database.db, { broadcast: "agents", max_broadcasts_per_agent: 1 });
    for (const agent of agents) if (agent.persona !== "songwriter") await setLatency(database, agent.id, 400);
    const first = ask(roomId, "songwriter", "First question?");
    await eventually(async () => expect(await database.db.select().from(broadcasts).where(eq(broadcasts.roomId, roomId))).toHaveLength(1));
    await expect(ask(roomId, "songwriter", "Second question?")).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/already have 1 active broadcasts; the limit is 1/),
    });
    expect((await first).status).toBe("complete");
    expect((await ask(roomId, "songwriter", "Third question, after the first closed?")).status).toBe("complete");
  });

  it("asks only the targeted agents, and leaves each responder a note about what its shadow said", async () => {
    const { roomId } = await createTestRoom(database.db, { broadcast: "agents" });
    const painter = await agentByPersona(database, roomId, "scene-painter");
    const result = await ask(roomId, "songwriter", "Which light should the scene have?", { targetAgents: ["Scene Painter"] });
    expect(result.responses.map((response) => response.responder_id)).toEqual(["Scene Painter"]);
    const [row] = await database.db.select().from(broadcasts).where(eq(broadcasts.roomId, roomId));
    expect(row!.targetAgentIds).toEqual([painter.id]);
    const notes = await database.db.select().from(agentNotes).where(eq(agentNotes.roomId, roomId));
    expect(notes).toHaveLength(1);
    expect(notes[0]!.agentId).toBe(painter.id);
    expect(notes[0]!.text).toMatch(
      /^\[INFO\] While you were working, Songwriter asked: "Which light should the scene have\?" Your shadow agent responded: "/,
    );
    await expect(ask(roomId, "songwriter", "Anyone?", { targetAgents: ["Nobody"] })).rejects.toThrow(/Unknown target agent/);
  });

  it("gives the shadow the responder's conversation and what it is writing right now", async () => {
    const { roomId } = await createTestRoom(database.db, { broadcast: "agents" });
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    const worker = await startTestWorker(database);
    try {
      await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Write about rain on the window" }, alice);
      await eventually(async () => {
        const rows = await database.db.select().from(runs).where(eq(runs.roomId, roomId));
        expect(rows.length).toBeGreaterThan(0);
        expect(rows.every((run) => run.status === "succeeded")).toBe(true);
      }, 20_000);
    } finally {
      await worker.stop();
    }
    const [lastRun] = await database.db
      .select()
      .from(runs)
      .where(and(eq(runs.roomId, roomId), eq(runs.agentId, songwriter.id)));
    await database.db
      .update(runs)
      .set({ status: "running", streamingText: "Second verse: the gutters sing" })
      .where(eq(runs.id, lastRun!.id));

    const seen: string[] = [];
    const capture = new MockLanguageModelV4({
      doGenerate: {
        content: [{ type: "text", text: "Keep the rain." }],
        finishReason: { unified: "stop", raw: "stop" },
        usage: { inputTokens: { total: 40, noCache: 40, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 4, text: 4, reasoning: 0 } },
        warnings: [],
      },
    });
    const spy = {
      ...deps,
      resolveModel: (spec: string) =>
        spec === "mock:spy" ? { model: capture, provider: "script" as const, modelId: spec, spec, scripted: true } : latencyResolver(spec),
    };
    await setAgentModel(database, songwriter.id, "mock:spy");
    const asker = await agentByPersona(database, roomId, "scene-painter");
    const result = await askOthers(spy, {
      roomId,
      asker,
      runId: null,
      correlationId: "c",
      question: "Rain or streetlights?",
      targetAgents: ["Songwriter"],
    });
    expect(result.responses[0]!.content).toBe("Keep the rain.");
    const call = capture.doGenerateCalls[0]!;
    seen.push(JSON.stringify(call.prompt));
    expect(call.tools ?? []).toHaveLength(0);
    expect(seen[0]).toMatch(/You are Songwriter/);
    expect(seen[0]).toMatch(/Answering a question from a teammate/);
    expect(seen[0]).toMatch(/Write about rain on the window/);
    expect(seen[0]).toMatch(/I added a lyric: “Verse/);
    expect(seen[0]).toMatch(/Second verse: the gutters sing/);
    expect(seen[0]).toMatch(/Question from Scene Painter/);
    expect(seen[0]).toMatch(/Response depth: medium/);
  });

  it("is refused when broadcasts are off", async () => {
    const { roomId } = await createTestRoom(database.db);
    await expect(ask(roomId, "songwriter", "Hello?")).rejects.toThrow(/Broadcasts are turned off/);
  });
});

describe("ask_others in human mode", () => {
  it("prompts the room; an answer, a skip and a timeout each end the wait, and the asker learns which", async () => {
    const { roomId } = await createTestRoom(database.db, { broadcast: "human", broadcast_timeout: 1 });
    const seat = await testSeat(database, roomId);

    const answered = ask(roomId, "songwriter", "Rain or streetlights?", { options: ["rain", "streetlights"] });
    const open = await waitForOpenQuestion(database, roomId);
    expect(open.options).toEqual(["rain", "streetlights"]);
    expect(open.deadlineAt!.getTime() - open.openedAt!.getTime()).toBe(1000);
    await answerHumanQuestion(database.db, roomId, open.id, seat, "streetlights, please");
    expect(await answered).toEqual({
      status: "complete",
      responses: [{ responder_id: "human", responder_name: "Ada", content: "streetlights, please", is_human: true }],
    });

    const skipped = ask(roomId, "songwriter", "Anything else?");
    const second = await waitForOpenQuestion(database, roomId);
    await skipHumanQuestion(database.db, roomId, second.id, seat);
    expect(await skipped).toEqual({ status: "skipped", responses: [] });

    const started = performance.now();
    const ignored = await ask(roomId, "songwriter", "Still there?");
    expect(ignored).toEqual({
      status: "timeout",
      responses: [],
      note: "Nobody in the room answered your question within 1 s. Carry on without an answer, using your own judgement.",
    });
    expect(performance.now() - started).toBeGreaterThanOrEqual(950);
    const statuses = (await database.db.select().from(broadcasts).where(eq(broadcasts.roomId, roomId))).map((row) => row.status);
    expect(statuses.sort()).toEqual(["complete", "skipped", "timeout"]);
    await expect(answerHumanQuestion(database.db, roomId, open.id, seat, "late")).rejects.toMatchObject({ status: 409 });
    // The room reads the ending in its own words.
    const closed = (await readEventsAfter(database.db, roomId, 0, 500)).filter((event) => event.type === "broadcast.closed").at(-1)!;
    expect(closed.error_details).toEqual({
      error_type: "broadcast_timeout",
      error_message: "Nobody answered in time; Songwriter carries on without an answer.",
      retry_possible: true,
    });
  });

  it("keeps one question open at a time; the one waiting opens when the first is answered, and is answered itself", async () => {
    const { roomId } = await createTestRoom(database.db, { broadcast: "human", broadcast_timeout: 30 });
    const seat = await testSeat(database, roomId);
    const first = ask(roomId, "songwriter", "What mood should the song have?");
    const second = ask(roomId, "scene-painter", "What colours should the scene use?");
    const open = await waitForOpenQuestion(database, roomId);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const rows = await database.db.select().from(broadcasts).where(eq(broadcasts.roomId, roomId));
    expect(rows.filter((row) => row.status === "open")).toHaveLength(1);
    expect(rows.filter((row) => row.status === "waiting_turn")).toHaveLength(1);

    await answerHumanQuestion(database.db, roomId, open.id, seat, "Melancholic, like a rainy night");
    const [winner, waiter] = open.agentName === "Songwriter" ? [first, second] : [second, first];
    expect(await winner).toMatchObject({ status: "complete", responses: [{ content: "Melancholic, like a rainy night" }] });
    const next = await waitForOpenQuestion(database, roomId);
    expect(next.id).not.toBe(open.id);
    await answerHumanQuestion(database.db, roomId, next.id, seat, "Deep blue and one warm lamp");
    expect(await waiter).toMatchObject({ status: "complete", responses: [{ content: "Deep blue and one warm lamp", is_human: true }] });
  });

  it("starts a question's countdown when it opens, however long it waited for its turn", async () => {
    const { roomId } = await createTestRoom(database.db, { broadcast: "human", broadcast_timeout: 2 });
    const seat = await testSeat(database, roomId);
    const first = ask(roomId, "songwriter", "What mood should the song have?");
    await waitForOpenQuestion(database, roomId);
    const second = ask(roomId, "scene-painter", "What colours should the scene use?");
    // The second waits the first out (it times out after 2 s), then opens with its own 2 s.
    expect(await within(4000, first)).toMatchObject({ status: "timeout", responses: [] });
    const open = await waitForOpenQuestion(database, roomId, 3000);
    expect(open.question).toBe("What colours should the scene use?");
    const [row] = await database.db.select().from(broadcasts).where(eq(broadcasts.id, open.id));
    expect(row!.deadlineAt!.getTime() - row!.openedAt!.getTime()).toBe(2000);
    expect(row!.openedAt!.getTime() - row!.createdAt.getTime()).toBeGreaterThan(1500);
    const opened = (await readEventsAfter(database.db, roomId, 0, 500)).find(
      (event) => event.type === "broadcast.opened" && event.payload.broadcastId === open.id,
    );
    expect(opened!.payload).toMatchObject({ deadlineAt: row!.deadlineAt!.toISOString(), openedAt: row!.openedAt!.toISOString() });
    // Answerable after the first question's time is up: its own full countdown runs.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await answerHumanQuestion(database.db, roomId, open.id, seat, "Deep blue");
    expect(await second).toMatchObject({ status: "complete", responses: [{ content: "Deep blue" }] });
  });

  it("does not let questions whose askers are gone hold the room past their own time", async () => {
    const { roomId } = await createTestRoom(database.db, { broadcast: "human", broadcast_timeout: 1 });
    const seat = await testSeat(database, roomId);
    // Left open by an asker that is gone, its time already up; and one written by an instance
    // from before waiting questions had a deadline, long ago.
    const crashed = await leaveQuestion(database, roomId, "idea-weaver", {
      mode: "human",
      status: "open",
      deadlineAt: new Date(Date.now() - 50),
    });
    const undated = await leaveWaitingQuestion(roomId, "storyteller", null);
    await database.db
      .update(broadcasts)
      .set({ createdAt: new Date(Date.now() - 60_000) })
      .where(eq(broadcasts.id, undated.id));

    const next = ask(roomId, "scene-painter", "Which light should the scene have?");
    const open = await waitForOpenQuestion(database, roomId, 3000, "Which light should the scene have?");
    expect(open.deadlineAt!.getTime() - open.openedAt!.getTime()).toBe(1000);
    expect(await statusOf(crashed.id)).toBe("timeout");
    expect(await statusOf(undated.id)).toBe("timeout");
    await answerHumanQuestion(database.db, roomId, open.id, seat, "one warm lamp");
    expect(await next).toMatchObject({ status: "complete", responses: [{ content: "one warm lamp" }] });
  });

  it("takes its question out of the queue when waiting for a turn fails", async () => {
    const { roomId } = await createTestRoom(database.db, { broadcast: "human", broadcast_timeout: 30 });
    const seat = await testSeat(database, roomId);
    const asker = await agentByPersona(database, roomId, "songwriter");
    // Left open by an asker that is gone, its time up: the new question waits behind it and moves
    // the queue on itself (its second transaction), which fails.
    const gone = await leaveQuestion(database, roomId, "idea-weaver", {
      mode: "human",
      status: "open",
      deadlineAt: new Date(Date.now() - 50),
    });
    const failing = interceptTransactions(database, (index) => {
      if (index === 2) throw new Error("connection lost");
    });
    await expect(
      askOthers({ ...deps, database: failing }, { roomId, asker, runId: null, correlationId: "c", question: "Rain?" }),
    ).rejects.toThrow("connection lost");
    const [row] = await database.db.select().from(broadcasts).where(eq(broadcasts.agentId, asker.id));
    expect(row!.status).toBe("cancelled");

    const next = ask(roomId, "scene-painter", "Which light should the scene have?");
    const open = await waitForOpenQuestion(database, roomId, 3000, "Which light should the scene have?");
    expect(await statusOf(gone.id)).toBe("timeout");
    await answerHumanQuestion(database.db, roomId, open.id, seat, "one warm lamp");
    expect((await next).status).toBe("complete");
  });
});

describe("agents using ask_others", () => {
  it("offers ask_others only when broadcasts are on, and never the retired respond_to_broadcast", async () => {
    const toolNames = async (settings: { broadcast?: "off" | "agents" | "human" }) => {
      const { roomId } = await createTestRoom(database.db, settings);
      const songwriter = await agentByPersona(database, roomId, "songwriter");
      const probe = scriptedSteps([textStep("Just looking.")]);
      await setAgentModel(database, songwriter.id, "mock:probe");
      const worker = await startTestWorker(database, {
        resolveModel: (spec) =>
          spec === "mock:probe" ? { model: probe, provider: "script", modelId: spec, spec, scripted: true } : latencyResolver(spec),
      });
      try {
        const run = await startAgentRun(database.db, roomId, { agentId: songwriter.id }, alice);
        await eventually(async () => {
          const [row] = await database.db.select().from(runs).where(eq(runs.id, run.id));
          expect(row!.status).toBe("succeeded");
        });
        expect(probe.doStreamCalls).toHaveLength(1);
      } finally {
        await worker.stop();
      }
      return (probe.doStreamCalls[0]!.tools ?? []).map((tool) => tool.name);
    };
    const off = await toolNames({});
    expect(off).toContain("create_node");
    expect(off).not.toContain("ask_others");
    expect(off).not.toContain("respond_to_broadcast");
    const on = await toolNames({ broadcast: "agents" });
    expect(on).toEqual(expect.arrayContaining(["ask_others", "create_node", "request_agent"]));
    expect(on).not.toContain("respond_to_broadcast");
  });

  it("uses a person's answer in its next output", async () => {
    const { roomId } = await createTestRoom(database.db, { broadcast: "human", broadcast_sensitivity: "high", broadcast_timeout: 30 });
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    const seat = await testSeat(database, roomId);
    const worker = await startTestWorker(database);
    try {
      const run = await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Write a verse about the harbour" }, alice);
      const open = await waitForOpenQuestion(database, roomId);
      expect(open.agentId).toBe(songwriter.id);
      expect(open.runId).toBe(run.id);
      await answerHumanQuestion(database.db, roomId, open.id, seat, "the gulls over the harbour");
      await eventually(async () => {
        const [row] = await database.db.select().from(runs).where(eq(runs.id, run.id));
        expect(row!.status).toBe("succeeded");
      }, 20_000);
      const events = await readEventsAfter(database.db, roomId, 0, 1000);
      const lyric = events.find(
        (event) =>
          event.type === "node.created" &&
          event.agent === songwriter.id &&
          (event.payload as { node: { text: string } }).node.text.startsWith("Verse"),
      )!;
      expect((lyric.payload as { node: { text: string } }).node.text).toMatch(/after Ada: “the gulls over the harbour”/);
      const said = events
        .filter((event) => event.type === "run.step" && (event.payload as { runId: string }).runId === run.id)
        .map((event) => (event.payload as { text: string }).text)
        .join(" ");
      expect(said).toMatch(/Going with Ada's answer: “the gulls over the harbour”/);
    } finally {
      await worker.stop();
    }
  });

  it("tells a running agent what its shadow answered, in its next step", async () => {
    const { roomId } = await createTestRoom(database.db, { broadcast: "agents" });
    const painter = await agentByPersona(database, roomId, "scene-painter");
    const release: { open?: () => void } = {};
    const held = new Promise<void>((resolve) => {
      release.open = resolve;
    });
    const twoSteps = scriptedSteps([
      toolStep([{ id: "r1", name: "read_shared_context", input: {} }], "Reading the board."),
      toolStep([{ id: "r2", name: "read_shared_context", input: {} }], "Reading it again."),
      textStep("Done."),
    ]);
    const slowFirst = {
      ...twoSteps,
      specificationVersion: "v4" as const,
      provider: "test",
      modelId: "slow-first",
      supportedUrls: {},
      doGenerate: async () => ({
        content: [{ type: "text" as const, text: "A single warm lamp." }],
        finishReason: { unified: "stop" as const, raw: "stop" },
        usage: { inputTokens: { total: 9, noCache: 9, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 5, text: 5, reasoning: 0 } },
        warnings: [],
      }),
      doStream: async (options: Parameters<typeof twoSteps.doStream>[0]) => {
        const assistantTurns = options.prompt.filter((message) => message.role === "assistant").length;
        if (assistantTurns === 1) await held;
        return twoSteps.doStream(options);
      },
    };
    await setAgentModel(database, painter.id, "mock:slow-first");
    const resolver = (spec: string) =>
      spec === "mock:slow-first"
        ? { model: slowFirst, provider: "script" as const, modelId: spec, spec, scripted: true }
        : latencyResolver(spec);
    const worker = await startTestWorker(database, { resolveModel: resolver });
    try {
      const run = await startAgentRun(database.db, roomId, { agentId: painter.id }, alice);
      await eventually(async () => {
        const [row] = await database.db.select().from(runs).where(eq(runs.id, run.id));
        expect(row!.steps).toBe(1);
      });
      expect(JSON.stringify(twoSteps.doStreamCalls.at(-1)!.prompt)).not.toMatch(/While you were working/);
      const songwriter = await agentByPersona(database, roomId, "songwriter");
      const asked = await askOthers(
        { ...deps, resolveModel: resolver },
        { roomId, asker: songwriter, runId: null, correlationId: "c", question: "Which light?", targetAgents: ["Scene Painter"] },
      );
      expect(asked.responses).toEqual([
        { responder_id: "Scene Painter", responder_name: "Scene Painter", content: "A single warm lamp.", is_human: false },
      ]);
      release.open!();
      await eventually(async () => {
        const [row] = await database.db.select().from(runs).where(eq(runs.id, run.id));
        expect(row!.status).toBe("succeeded");
      });
      const lastPrompt = JSON.stringify(twoSteps.doStreamCalls.at(-1)!.prompt);
      expect(lastPrompt).toMatch(
        /While you were working, Songwriter asked: \\"Which light\?\\" Your shadow agent responded: \\"A single warm lamp\.\\"/,
      );
      const pending = await database.db
        .select()
        .from(agentNotes)
        .where(and(eq(agentNotes.agentId, painter.id), isNull(agentNotes.deliveredAt)));
      expect(pending).toHaveLength(0);
    } finally {
      release.open!();
      await worker.stop();
    }
  });
});
