import { APICallError, type LanguageModelV4, type LanguageModelV4CallOptions, type LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { MockLanguageModelV4, convertArrayToReadableStream } from "ai/test";
import { and, asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db";
import {
  type Run,
  agentNotes,
  agents,
  boardEntries,
  broadcastResponses,
  broadcasts,
  canvasNodes,
  runModelCalls,
  runSteps,
  runs,
} from "@/db/schema";
import { leaveNote, shadowNote } from "@/lib/broadcast/agent-notes";
import { answerHumanQuestion } from "@/lib/broadcast/answer-question";
import { readEventsAfter } from "@/lib/events/read-events";
import { costOf } from "@/lib/models/pricing";
import type { ResolvedModel } from "@/lib/models/registry";
import type { PayloadOf } from "@/lib/protocol";
import { RoomBus } from "@/lib/realtime/bus";
import { agentByPersona, startTestWorker } from "@/test/agents";
import { testSeat } from "@/test/broadcasts";
import { alice, createTestRoom, eventually } from "@/test/fixtures";
import { interceptTransactions } from "@/test/intercept-transactions";
import { mockResolver, scriptedSteps, setAgentModel, textStep, toolStep, withUsage } from "@/test/mock-models";
import { type TestDatabase, createTestDatabase } from "@/test/test-database";
import { claimNextRun } from "./claim-run";
import { type StopReason, executeRun } from "./execute-run";
import { startAgentRun } from "./start-agent-run";

// Claims here take any room's runs, so these tests keep a database of their own.
let database: TestDatabase;
let bus: RoomBus;

beforeAll(async () => {
  database = await createTestDatabase();
  bus = new RoomBus(database);
  await bus.start();
});
afterAll(async () => {
  await bus.stop();
  await database.destroy();
});

/**
 * A model that plays `steps` in order (chosen by the assistant turns already in its prompt),
 * except that while `dying` is set it never answers step `stallAt`: its worker dies there.
 * `whileDying` runs as the first worker's model is asked for each step.
 */
function stallingModel(
  steps: LanguageModelV4StreamPart[][],
  stallAt: number,
  whileDying: (step: number) => Promise<unknown> = async () => {},
) {
  const control = { dying: true };
  const model = new MockLanguageModelV4({
    doStream: async (call: LanguageModelV4CallOptions) => {
      // As a provider's fetch does: a call made after the run was stopped fails at once.
      call.abortSignal?.throwIfAborted();
      const done = call.prompt.filter((message) => message.role === "assistant").length;
      if (control.dying) await whileDying(done);
      if (control.dying && done === stallAt) {
        await new Promise((_, reject) => call.abortSignal?.addEventListener("abort", () => reject(call.abortSignal!.reason)));
      }
      return { stream: convertArrayToReadableStream(steps[Math.min(done, steps.length - 1)]!) };
    },
  });
  return { model, control };
}

/** A model whose run asks for help twice, one request per step; its first worker dies after the first. */
function askingTwice() {
  return stallingModel(
    [
      toolStep([{ id: "r1", name: "request_agent", input: { targetPersona: "storyteller", prompt: "Tell its story." } }]),
      toolStep([{ id: "r2", name: "request_agent", input: { targetPersona: "scene-painter", prompt: "Paint it." } }]),
      textStep("Done."),
    ],
    1,
  );
}

/**
 * A model that plays `steps` in order (chosen by the assistant turns already in its prompt).
 * The first time it is asked for step `at`, the run's lease is taken away while it answers, as
 * when the worker's lease lapses then: the call still returns (with `lost` as its usage, when
 * given) and its tools run, but its step cannot be saved. Set `runId` once the run exists.
 */
function losingLeaseAt(steps: LanguageModelV4StreamPart[][], at: number, lost?: { inputTokens: number; outputTokens: number }) {
  const state = { runId: "", lost: false };
  const model = new MockLanguageModelV4({
    doStream: async (call: LanguageModelV4CallOptions) => {
      const done = call.prompt.filter((message) => message.role === "assistant").length;
      let parts = steps[done]!;
      if (done === at && !state.lost) {
        state.lost = true;
        await database.db
          .update(runs)
          .set({ leaseOwner: "nobody", leaseExpiresAt: new Date(Date.now() - 1000) })
          .where(eq(runs.id, state.runId));
        if (lost) parts = withUsage(parts, lost.inputTokens, lost.outputTokens);
      }
      return { stream: convertArrayToReadableStream(parts) };
    },
  });
  return { model, state };
}

async function runRow(runId: string): Promise<Run> {
  const [row] = await database.db.select().from(runs).where(eq(runs.id, runId));
  return row!;
}

/**
 * Executes `runId` as a worker that dies once `steps` steps are saved: its lease (short) is
 * left to lapse, as when its process is killed, so another worker claims the run again.
 */
async function dieAfterSteps(
  runId: string,
  steps: number,
  model: ReturnType<typeof stallingModel>,
  ready: () => Promise<void> = async () => {},
  resolveModel = mockResolver({ stalling: model.model }),
) {
  const claimed = await claimNextRun(database.db, { owner: "worker-that-dies", leaseMs: 400 });
  expect(claimed?.id).toBe(runId);
  const controller = new AbortController();
  let reason: StopReason | null = null;
  const executing = executeRun({ database, bus, resolveModel, typingFlushMs: 10 }, claimed!, {
    owner: "worker-that-dies",
    signal: controller.signal,
    stopReason: () => reason,
  });
  await eventually(async () => expect((await runRow(runId)).steps).toBe(steps));
  await eventually(ready);
  reason = "lease_lost";
  controller.abort(new Error(reason));
  expect(await executing).toBeNull();
  model.control.dying = false;
}

/** Waits until no run of the room is queued or running, and returns them all. */
async function settled(roomId: string) {
  return eventually(async () => {
    const all = await database.db.select().from(runs).where(eq(runs.roomId, roomId));
    expect(all.every((run) => run.status !== "queued" && run.status !== "running")).toBe(true);
    return all;
  }, 20_000);
}

/** A second worker takes over the room's runs and finishes its work. */
async function takeOver(roomId: string, resolveModel: (spec: string) => ResolvedModel) {
  const survivor = await startTestWorker(database, { resolveModel });
  try {
    await settled(roomId);
  } finally {
    await survivor.stop();
  }
}

/**
 * Starts the Songwriter on `model`. Its first worker dies once `steps` steps are saved; a
 * second worker takes the run over and finishes the room's work. Returns the run and the
 * model calls made after the takeover.
 */
async function runTakenOver(roomId: string, model: ReturnType<typeof stallingModel>, steps: number, ready?: () => Promise<void>) {
  const songwriter = await agentByPersona(database, roomId, "songwriter");
  await setAgentModel(database, songwriter.id, "mock:stalling");
  const run = await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Write about rain" }, alice);
  await dieAfterSteps(run.id, steps, model, ready);
  const callsBefore = model.model.doStreamCalls.length;
  await takeOver(roomId, mockResolver({ stalling: model.model }));
  return { run, resumedCalls: model.model.doStreamCalls.slice(callsBefore) };
}

/**
 * Starts the Songwriter on a model playing `steps` and takes the first step on a worker whose
 * lease lapses while the model answers: the step's tools still run, but the step cannot be
 * saved, as when the worker dies just before saving it. `models` are the other agents' mocks.
 */
async function firstStepNotSaved(roomId: string, steps: LanguageModelV4StreamPart[][], models: Record<string, LanguageModelV4> = {}) {
  const songwriter = await agentByPersona(database, roomId, "songwriter");
  const { model, state } = losingLeaseAt(steps, 0);
  const resolveModel = mockResolver({ losing: model, ...models });
  await setAgentModel(database, songwriter.id, "mock:losing");
  const run = await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Write about rain" }, alice);
  state.runId = run.id;
  const claimed = await claimNextRun(database.db, { owner: "worker-that-dies", leaseMs: 5000 });
  const lost = await executeRun({ database, bus, resolveModel }, claimed!, {
    owner: "worker-that-dies",
    signal: new AbortController().signal,
    stopReason: () => null,
  });
  expect(lost).toBeNull();
  expect((await runRow(run.id)).steps).toBe(0);
  return { songwriter, run, resolveModel };
}

async function runEvents(roomId: string, runId: string) {
  const events = await readEventsAfter(database.db, roomId, 0, 2000);
  const ofRun = events.filter((event) => (event.payload as { runId?: string }).runId === runId);
  return {
    steps: ofRun.filter((event) => event.type === "run.step").map((event) => event.payload as PayloadOf<"run.step">),
    finished: ofRun.filter((event) => event.type === "run.finished").map((event) => event.payload as PayloadOf<"run.finished">),
  };
}

/** The run asked for help once, and its second request (after the takeover) was refused. */
async function expectSecondRequestRefused(roomId: string, runId: string) {
  const children = await database.db
    .select()
    .from(runs)
    .where(and(eq(runs.roomId, roomId), eq(runs.parentRunId, runId)));
  expect(children).toHaveLength(1);
  const refused = (await runEvents(roomId, runId)).steps.find((step) => step.step === 1)!.toolResults[0]!;
  expect((refused.output as { error?: string }).error).toMatch(/Only 1 request is allowed per run/);
}

describe("a run whose worker died", () => {
  it("is announced finished with the totals of all its attempts, and how many there were", async () => {
    const { roomId } = await createTestRoom(database.db);
    const stalling = stallingModel(
      [toolStep([{ id: "n1", name: "create_node", input: { text: "Rain taps the glass", kind: "lyric" } }]), textStep("Done.")],
      1,
    );
    const { run } = await runTakenOver(roomId, stalling, 1);
    const row = await runRow(run.id);
    const { steps, finished } = await runEvents(roomId, run.id);
    expect(finished).toHaveLength(1);
    const sum = (pick: (step: PayloadOf<"run.step">) => number) => steps.reduce((total, step) => total + pick(step), 0);
    expect(finished[0]).toMatchObject({
      status: "succeeded",
      attempts: 2,
      steps: steps.length,
      inputTokens: sum((step) => step.inputTokens),
      outputTokens: sum((step) => step.outputTokens),
    });
    expect(finished[0]!.costUsd).toBeCloseTo(
      sum((step) => step.costUsd),
      10,
    );
    expect(finished[0]).toMatchObject({
      steps: row.steps,
      attempts: row.attempts,
      inputTokens: row.inputTokens,
      outputTokens: row.outputTokens,
    });
  });
});

describe("a run taken over from a worker that died", () => {
  it("continues the conversation after the saved steps, without doing their work again", async () => {
    const { roomId } = await createTestRoom(database.db);
    const stalling = stallingModel(
      [
        toolStep([
          { id: "n1", name: "create_node", input: { text: "Rain taps the glass", kind: "lyric" } },
          { id: "i1", name: "share_creative_context", input: { entryType: "intention", content: { plan: "A verse about rain" } } },
        ]),
        toolStep([{ id: "r1", name: "request_agent", input: { targetPersona: "storyteller", prompt: "Tell the story of this verse." } }]),
        textStep("Wrote a verse and asked for its story."),
      ],
      2,
    );
    const { run, resumedCalls } = await runTakenOver(roomId, stalling, 2);

    const row = await runRow(run.id);
    expect(row).toMatchObject({ status: "succeeded", attempts: 2, steps: 3 });
    const nodes = await database.db.select().from(canvasNodes).where(eq(canvasNodes.roomId, roomId));
    expect(nodes.filter((node) => node.text === "Rain taps the glass")).toHaveLength(1);
    const posted = await database.db.select().from(boardEntries).where(eq(boardEntries.runId, run.id));
    expect(posted.map((entry) => entry.kind).sort()).toEqual(["intention", "request"]);
    const children = await database.db
      .select()
      .from(runs)
      .where(and(eq(runs.roomId, roomId), eq(runs.parentRunId, run.id)));
    expect(children).toHaveLength(1);
    expect((await runEvents(roomId, run.id)).steps.map((step) => step.step)).toEqual([0, 1, 2]);

    // One more model call, reading the same opening and the two saved steps with their results.
    expect(resumedCalls).toHaveLength(1);
    const [first] = stalling.model.doStreamCalls;
    const resumed = resumedCalls[0]!.prompt;
    expect(resumed.map((message) => message.role)).toEqual(["system", "user", "assistant", "tool", "assistant", "tool"]);
    expect(resumed.slice(0, 2)).toEqual(first!.prompt.slice(0, 2));
    expect(JSON.stringify(resumed[3])).toContain(nodes[0]!.id);
    expect(JSON.stringify(resumed[5])).toContain(children[0]!.id);
    // In brief, for the dashboard: the step taken over read the saved steps, new in it only the last one's result.
    const takenOver = (await runEvents(roomId, run.id)).steps.find((step) => step.step === 2)!;
    expect(takenOver.prompt).toMatchObject({
      messageCount: resumed.length,
      added: { opening: false, toolResults: 1, messages: 0, notes: 0 },
    });

    // Finished, the run keeps its transcript and drops what only a resumed attempt needs.
    expect(row.opening).toBeNull();
    expect(await database.db.select().from(runSteps).where(eq(runSteps.runId, run.id))).toEqual([]);
  });

  it("drops its saved steps when it is ended instead of resumed", async () => {
    const { roomId } = await createTestRoom(database.db);
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    await setAgentModel(database, songwriter.id, "mock:stalling");
    const reading = toolStep([{ id: "r", name: "read_shared_context", input: {} }]);
    const model = stallingModel([reading, reading, textStep("Done.")], 1);
    const run = await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Write about rain" }, alice);
    await dieAfterSteps(run.id, 1, model);
    expect(await database.db.select().from(runSteps).where(eq(runSteps.runId, run.id))).toHaveLength(1);

    await database.db.update(runs).set({ cancelRequested: true }).where(eq(runs.id, run.id));
    await eventually(async () => expect((await runRow(run.id)).leaseExpiresAt!.getTime()).toBeLessThan(Date.now()));
    expect(await claimNextRun(database.db, { owner: "next-worker", leaseMs: 60_000 })).toBeNull();
    expect(await runRow(run.id)).toMatchObject({ status: "cancelled", opening: null });
    expect(await database.db.select().from(runSteps).where(eq(runSteps.runId, run.id))).toEqual([]);
  });

  it("takes only the steps the room allows a run, counting those already taken", async () => {
    const { roomId } = await createTestRoom(database.db, { max_steps: 3 });
    // Each step reads a little more of the board: the same call three times would stop the run on its own.
    const reading = (limit: number) => toolStep([{ id: "r", name: "read_shared_context", input: { limit } }]);
    const { run, resumedCalls } = await runTakenOver(roomId, stallingModel([1, 2, 3, 4, 5].map(reading), 2), 2);
    expect(await runRow(run.id)).toMatchObject({ status: "succeeded", steps: 3 });
    expect(resumedCalls).toHaveLength(1);
  });

  it("still counts the requests its earlier attempts made", async () => {
    const { roomId } = await createTestRoom(database.db);
    const stalling = askingTwice();
    const { run } = await runTakenOver(roomId, stalling, 1);
    await expectSecondRequestRefused(roomId, run.id);
  });

  it("still counts them once their board entries have expired", async () => {
    const { roomId } = await createTestRoom(database.db);
    const stalling = askingTwice();
    // The board forgets expired entries; the run's request is among them by the time it resumes.
    const expire = async () => {
      await database.db.delete(boardEntries).where(eq(boardEntries.roomId, roomId));
    };
    const { run } = await runTakenOver(roomId, stalling, 1, expire);
    await expectSecondRequestRefused(roomId, run.id);
  });

  it("finishes without calling the model when its last saved step was its answer", async () => {
    const { roomId } = await createTestRoom(database.db);
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    const stalling = stallingModel([textStep("Nothing to add.")], 99);
    await setAgentModel(database, songwriter.id, "mock:stalling");
    const run = await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Anything?" }, alice);
    // The step is saved, but the worker loses the run before it can finish it.
    const claimed = await claimNextRun(database.db, { owner: "worker-that-dies", leaseMs: 400 });
    const outcome = await executeRun({ database, bus, resolveModel: mockResolver({ stalling: stalling.model }) }, claimed!, {
      owner: "worker-that-dies",
      signal: new AbortController().signal,
      stopReason: () => "lease_lost",
    });
    expect(outcome).toBeNull();
    expect((await runRow(run.id)).steps).toBe(1);

    const survivor = await startTestWorker(database, { resolveModel: mockResolver({ stalling: stalling.model }) });
    try {
      await settled(roomId);
    } finally {
      await survivor.stop();
    }
    expect(await runRow(run.id)).toMatchObject({ status: "succeeded", steps: 1, attempts: 2 });
    expect(stalling.model.doStreamCalls).toHaveLength(1);
  });
});

describe("a step whose tools ran but which was not saved", () => {
  it("is taken again without writing its nodes, board entries and requests a second time", async () => {
    const { roomId } = await createTestRoom(database.db);
    const { songwriter, run, resolveModel } = await firstStepNotSaved(roomId, [
      toolStep([
        { id: "n1", name: "create_node", input: { text: "Rain taps the glass", kind: "lyric" } },
        { id: "n2", name: "create_node", input: { text: "Rain taps the glass", kind: "lyric" } },
        { id: "i1", name: "share_creative_context", input: { entryType: "intention", content: { plan: "A verse about rain" } } },
        { id: "r1", name: "request_agent", input: { targetPersona: "storyteller", prompt: "Tell the story of this verse." } },
      ]),
      textStep("Wrote a verse and asked for its story."),
    ]);
    const before = await database.db.select().from(canvasNodes).where(eq(canvasNodes.roomId, roomId));
    expect(before).toHaveLength(2);

    await takeOver(roomId, resolveModel);
    expect(await runRow(run.id)).toMatchObject({ status: "succeeded", attempts: 2, steps: 2 });
    // The requested Storyteller adds nodes of its own.
    const nodes = await database.db.select().from(canvasNodes).where(eq(canvasNodes.authorId, songwriter.id));
    expect(nodes.map((node) => node.id).sort()).toEqual(before.map((node) => node.id).sort());
    const posted = await database.db.select().from(boardEntries).where(eq(boardEntries.runId, run.id));
    expect(posted.map((entry) => entry.kind).sort()).toEqual(["intention", "request"]);
    const children = await database.db
      .select()
      .from(runs)
      .where(and(eq(runs.roomId, roomId), eq(runs.parentRunId, run.id)));
    expect(children).toHaveLength(1);

    // The step taken again reads as the first one did: the same node ids, entry and requested run.
    const [retaken] = (await runEvents(roomId, run.id)).steps;
    // Tools run side by side, so their results are listed as they finish: look them up by call.
    const output = (callId: string) => retaken!.toolResults.find((result) => result.id === callId)!.output as Record<string, unknown>;
    expect(["n1", "n2", "i1", "r1"].map((callId) => output(callId).ok)).toEqual([true, true, true, true]);
    expect(["n1", "n2"].map((callId) => (output(callId).node as { id: string }).id).sort()).toEqual(before.map((node) => node.id).sort());
    expect(output("i1").entryId).toBe(posted.find((entry) => entry.kind === "intention")!.id);
    expect(output("r1")).toMatchObject({ requestId: posted.find((entry) => entry.kind === "request")!.id, runId: children[0]!.id });
  });
});

/**
 * The model the other agents' shadows answer with: at once, or, while `hold.on` is set, not
 * until the asker gives up on them. Its calls count the shadows launched.
 */
function shadowModel(hold = { on: false }) {
  return new MockLanguageModelV4({
    doGenerate: async ({ abortSignal }) => {
      if (hold.on) await new Promise((_, reject) => abortSignal?.addEventListener("abort", () => reject(abortSignal.reason)));
      return {
        content: [{ type: "text", text: "Keep the rain." }],
        finishReason: { unified: "stop", raw: "stop" },
        usage: { inputTokens: { total: 9, noCache: 9, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 4, text: 4, reasoning: 0 } },
        warnings: [],
      };
    },
  });
}

/** Has every agent of the room but the Songwriter answer through `mock:shadow`. */
async function answerThroughShadowModel(roomId: string) {
  for (const agent of await database.db.select().from(agents).where(eq(agents.roomId, roomId))) {
    if (agent.persona !== "songwriter") await setAgentModel(database, agent.id, "mock:shadow");
  }
}

async function questionsOf(runId: string) {
  return database.db.select().from(broadcasts).where(eq(broadcasts.runId, runId)).orderBy(asc(broadcasts.createdAt));
}

/** The types of the room's events, in order, about the run and the questions it asked. */
async function storyOfQuestions(roomId: string, runId: string) {
  const asked = new Set((await questionsOf(runId)).map((question) => question.id));
  const events = await readEventsAfter(database.db, roomId, 0, 2000);
  return events
    .filter((event) => {
      const payload = event.payload as {
        runId?: string;
        broadcast?: { id: string };
        broadcastId?: string;
        response?: { broadcastId: string };
      };
      const question = payload.broadcast?.id ?? payload.broadcastId ?? payload.response?.broadcastId;
      return payload.runId === runId || (question !== undefined && asked.has(question));
    })
    .map((event) => event.type);
}

describe("a step that asked a question but was not saved", () => {
  const asking = (question: string) => toolStep([{ id: "a1", name: "ask_others", input: { question } }]);

  it("is taken again without asking a second time: the call gets the answers the question got", async () => {
    const { roomId } = await createTestRoom(database.db, { broadcast: "agents" });
    await answerThroughShadowModel(roomId);
    const shadow = shadowModel();
    const { run, resolveModel } = await firstStepNotSaved(roomId, [asking("Rain or streetlights?"), textStep("Keeping the rain.")], {
      shadow,
    });
    const [asked] = await questionsOf(run.id);
    expect(asked!.status).toBe("complete");

    await takeOver(roomId, resolveModel);
    expect(await runRow(run.id)).toMatchObject({ status: "succeeded", attempts: 2, steps: 2 });
    expect(await questionsOf(run.id)).toEqual([asked]);
    expect(shadow.doGenerateCalls).toHaveLength(4);
    expect(await storyOfQuestions(roomId, run.id)).toEqual([
      "run.started",
      "broadcast.asked",
      ...Array(4).fill("broadcast.response"),
      "broadcast.closed",
      "run.started",
      "run.step",
      "run.step",
      "run.finished",
    ]);
    const [retaken] = (await runEvents(roomId, run.id)).steps;
    const answered = await database.db.select().from(broadcastResponses).where(eq(broadcastResponses.broadcastId, asked!.id));
    const output = retaken!.toolResults[0]!.output as {
      ok: boolean;
      status: string;
      responses: { responder_name: string; content: string }[];
    };
    expect(output).toMatchObject({ ok: true, status: "complete" });
    expect(output.responses.map((response) => response.responder_name).sort()).toEqual(
      answered.map((response) => response.responderName).sort(),
    );
  });

  it("carries on with a person's question its dead worker left open, and takes the answer given to it", async () => {
    const { roomId } = await createTestRoom(database.db, { broadcast: "human", broadcast_timeout: 30, max_broadcasts_per_agent: 1 });
    const seat = await testSeat(database, roomId);
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    await setAgentModel(database, songwriter.id, "mock:stalling");
    const model = stallingModel([asking("Rain or streetlights?"), textStep("Going with the answer.")], Number.POSITIVE_INFINITY);
    const run = await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Write about rain" }, alice);
    await dieAfterSteps(run.id, 0, model, async () => expect(await questionsOf(run.id)).toMatchObject([{ status: "open" }]));
    const [open] = await questionsOf(run.id);
    expect(open!.status).toBe("open");

    const callsBefore = model.model.doStreamCalls.length;
    const survivor = await startTestWorker(database, { resolveModel: mockResolver({ stalling: model.model }) });
    try {
      // The step is taken again, and its call waits on the question still on the page.
      await eventually(() => expect(model.model.doStreamCalls.length).toBe(callsBefore + 1));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await questionsOf(run.id)).toEqual([open]);
      await answerHumanQuestion(database.db, roomId, open!.id, seat, "the streetlights");
      await settled(roomId);
    } finally {
      await survivor.stop();
    }
    expect(await runRow(run.id)).toMatchObject({ status: "succeeded", attempts: 2, steps: 2 });
    expect(await questionsOf(run.id)).toMatchObject([{ id: open!.id, status: "complete", deadlineAt: open!.deadlineAt }]);
    expect((await storyOfQuestions(roomId, run.id)).filter((type) => type.startsWith("broadcast."))).toEqual([
      "broadcast.asked",
      "broadcast.opened",
      "broadcast.response",
      "broadcast.closed",
    ]);
    const [retaken] = (await runEvents(roomId, run.id)).steps;
    expect(retaken!.toolResults[0]!.output).toEqual({
      ok: true,
      status: "complete",
      responses: [{ responder_id: "human", responder_name: "Ada", content: "the streetlights", is_human: true }],
    });
  });

  it("asks the question a step taken again asks instead, and withdraws the earlier one once that step is saved", async () => {
    const { roomId } = await createTestRoom(database.db, { broadcast: "agents", broadcast_timeout: 30 });
    await answerThroughShadowModel(roomId);
    const hold = { on: true };
    const shadow = shadowModel(hold);
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    await setAgentModel(database, songwriter.id, "mock:stalling");
    // Taking the step again, the model asks something else.
    const control = { dying: true };
    const model = new MockLanguageModelV4({
      doStream: async (call: LanguageModelV4CallOptions) => {
        const done = call.prompt.filter((message) => message.role === "assistant").length;
        const steps = [asking(control.dying ? "Rain or streetlights?" : "Which light?"), textStep("Done.")];
        return { stream: convertArrayToReadableStream(steps[done]!) };
      },
    });
    const resolveModel = mockResolver({ stalling: model, shadow });
    const run = await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Write about rain" }, alice);
    const pending = async () => expect(await questionsOf(run.id)).toMatchObject([{ status: "pending" }]);
    await dieAfterSteps(run.id, 0, { model, control }, pending, resolveModel);
    await pending();

    hold.on = false;
    await takeOver(roomId, resolveModel);
    expect(await runRow(run.id)).toMatchObject({ status: "succeeded", attempts: 2, steps: 2 });
    const [earlier, asked] = await questionsOf(run.id);
    expect([earlier, asked].map((question) => [question!.question, question!.status])).toEqual([
      ["Rain or streetlights?", "cancelled"],
      ["Which light?", "complete"],
    ]);
    // Left open for the attempt that took the run over, and withdrawn in the write that saved the step it took again.
    expect((await storyOfQuestions(roomId, run.id)).slice(0, 3)).toEqual(["run.started", "broadcast.asked", "run.started"]);
    const events = await readEventsAfter(database.db, roomId, 0, 2000);
    const withdrawn = events.find(
      (event) => event.type === "broadcast.closed" && (event.payload as { broadcastId: string }).broadcastId === earlier!.id,
    );
    const saved = events.find((event) => event.type === "run.step" && (event.payload as { runId: string }).runId === run.id);
    expect(withdrawn!.seq).toBe(saved!.seq - 1);
    const [retaken] = (await runEvents(roomId, run.id)).steps;
    expect(retaken!.toolResults[0]!.output).toMatchObject({ ok: true, status: "complete", responses: expect.any(Array) });
    expect((retaken!.toolResults[0]!.output as { responses: unknown[] }).responses).toHaveLength(4);
  });
});

describe("notes for an agent that arrive while it works", () => {
  const note = (label: string) => shadowNote("Scene Painter", `What about ${label}?`, `Keep ${label} in the verse.`);
  const reading = toolStep([{ id: "r", name: "read_shared_context", input: {} }]);

  it("stay where they arrived for the rest of the run, once, also after a takeover", async () => {
    const { roomId } = await createTestRoom(database.db);
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    const leave = (label: string) => leaveNote(database.db, { roomId, agentId: songwriter.id, text: note(label) });
    // The first note arrives during step 0 and is shown with step 1, which is saved. The
    // second arrives during step 1 and is taken for step 2, which the worker never saves.
    // The third read asks for fewer entries: the same call three times would stop the run on its own.
    const readingFewer = toolStep([{ id: "r", name: "read_shared_context", input: { limit: 5 } }]);
    const stalling = stallingModel([reading, reading, readingFewer, textStep("Done.")], 2, async (step) => {
      if (step === 0) await leave("the harbour");
      if (step === 1) await leave("the lighthouse");
    });
    const secondTaken = async () => {
      const [second] = await database.db
        .select()
        .from(agentNotes)
        .where(eq(agentNotes.text, note("the lighthouse")));
      expect(second!.deliveredAt).not.toBeNull();
    };
    // A note already waiting when the run starts is part of its opening message.
    await leave("the pier");
    const { resumedCalls } = await runTakenOver(roomId, stalling, 2, secondTaken);

    const count = (prompt: unknown, label: string) => JSON.stringify(prompt).split(`What about ${label}?`).length - 1;
    expect(count(stalling.model.doStreamCalls[1]!.prompt, "the harbour")).toBe(1);
    expect(resumedCalls).toHaveLength(2);
    for (const call of resumedCalls) {
      expect(count(call.prompt, "the pier")).toBe(1);
      expect(count(call.prompt, "the harbour")).toBe(1);
      expect(count(call.prompt, "the lighthouse")).toBe(1);
    }
    const roles = resumedCalls.at(-1)!.prompt.map((message) => message.role);
    expect(roles).toEqual(["system", "user", "assistant", "tool", "user", "assistant", "tool", "user", "assistant", "tool"]);
    expect(JSON.stringify(resumedCalls.at(-1)!.prompt[4])).toContain("What about the harbour?");
    expect(JSON.stringify(resumedCalls.at(-1)!.prompt[7])).toContain("What about the lighthouse?");
  });

  it("keep to the room's context budget, the newest first", async () => {
    const { roomId } = await createTestRoom(database.db, { context_token_budget: 400 });
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    const labels = Array.from({ length: 6 }, (_, index) => `tide ${index} ${"and the gulls answering ".repeat(16)}`);
    const busy = stallingModel([reading, reading, textStep("Done.")], 99, async (step) => {
      if (step !== 0) return;
      for (const label of labels) await leaveNote(database.db, { roomId, agentId: songwriter.id, text: note(label) });
    });
    await setAgentModel(database, songwriter.id, "mock:busy");
    const worker = await startTestWorker(database, { resolveModel: mockResolver({ busy: busy.model }) });
    try {
      await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Write about the sea" }, alice);
      await settled(roomId);
    } finally {
      await worker.stop();
    }
    for (const call of busy.model.doStreamCalls.slice(1)) {
      const prompt = JSON.stringify(call.prompt);
      const shown = labels.map((label, index) => (prompt.includes(`tide ${index} `) ? index : -1)).filter((index) => index >= 0);
      expect(shown.length).toBeGreaterThan(0);
      expect(shown.length).toBeLessThan(labels.length);
      expect(shown).toEqual(labels.slice(labels.length - shown.length).map((_, offset) => labels.length - shown.length + offset));
    }
  });
});

describe("a run stopped while it saves a step", () => {
  it("asks the model nothing more", async () => {
    const { roomId } = await createTestRoom(database.db);
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    await setAgentModel(database, songwriter.id, "mock:stalling");
    const reading = toolStep([{ id: "r", name: "read_shared_context", input: {} }]);
    const model = stallingModel([reading, reading, textStep("Done.")], Number.POSITIVE_INFINITY);
    const run = await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Write about rain" }, alice);
    const claimed = await claimNextRun(database.db, { owner: "worker-that-stops", leaseMs: 60_000 });
    expect(claimed?.id).toBe(run.id);

    // The lease is lost just as the first step's save begins (the step has only read, so its
    // save is the run's first write, and carries the step's model call): the save goes
    // through, and nothing after it may reach the model.
    const controller = new AbortController();
    let reason: StopReason | null = null;
    const stopping = interceptTransactions(database, () => {
      // The call's reservation, made in a transaction of its own before the call, goes by.
      if (reason || model.model.doStreamCalls.length === 0) return;
      reason = "lease_lost";
      controller.abort(new Error(reason));
    });
    const outcome = await executeRun(
      { database: stopping, bus, resolveModel: mockResolver({ stalling: model.model }), typingFlushMs: 10 },
      claimed!,
      { owner: "worker-that-stops", signal: controller.signal, stopReason: () => reason },
    );
    expect(outcome).toBeNull();
    await stopping.settled();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await runRow(run.id)).steps).toBe(1);
    expect(model.model.doStreamCalls).toHaveLength(1);
    await database.db.update(runs).set({ status: "cancelled", leaseOwner: null, leaseExpiresAt: null }).where(eq(runs.id, run.id));
  });
});

describe("a run its own worker claims again", () => {
  it("is carried on by the new claim alone, the old copy stopping without a trace", async () => {
    const { roomId } = await createTestRoom(database.db);
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    await setAgentModel(database, songwriter.id, "mock:stalling");
    const run = await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Write about rain" }, alice);

    // The database stops taking this worker's heartbeats while the run's first model call
    // streams, long enough for the lease to lapse: the worker's own claim loop takes the run again.
    let heartbeatsFail = false;
    const flaky = {
      ...database,
      db: new Proxy(database.db, {
        get(target, property) {
          if (property === "update" && heartbeatsFail) throw new Error("connection lost");
          const value = Reflect.get(target, property, target);
          return typeof value === "function" ? value.bind(target) : value;
        },
      }),
    };
    const steps = [
      toolStep([{ id: "n1", name: "create_node", input: { text: "From the copy that lost its lease", kind: "lyric" } }]),
      textStep("Done."),
    ];
    let calls = 0;
    const model = new MockLanguageModelV4({
      doStream: async () => {
        const call = ++calls;
        // The new claim's copy finds the database reachable again (its streamed text is saved with an update).
        if (call > 1) heartbeatsFail = false;
        if (call === 1) {
          heartbeatsFail = true;
          await eventually(async () => expect((await runRow(run.id)).attempts).toBe(2), 10_000);
          heartbeatsFail = false;
        }
        return { stream: convertArrayToReadableStream(steps[call - 1] ?? textStep("Done.")) };
      },
    });
    const worker = await startTestWorker(flaky, {
      resolveModel: mockResolver({ stalling: model }),
      leaseMs: 800,
      heartbeatMs: 150,
      onError: () => {},
    });
    try {
      await settled(roomId);
      await worker.worker.idle();
    } finally {
      await worker.stop();
    }

    expect(await runRow(run.id)).toMatchObject({ status: "succeeded", attempts: 2, steps: 1 });
    const nodes = await database.db.select().from(canvasNodes).where(eq(canvasNodes.roomId, roomId));
    expect(nodes.map((node) => node.text)).not.toContain("From the copy that lost its lease");
    expect((await runEvents(roomId, run.id)).steps.map((step) => step.text)).toEqual(["Done."]);
    expect(worker.worker.activeRunIds()).toEqual([]);
  });
});

describe("a run's totals", () => {
  // Priced, so that the costs are not all 0.
  const PRICED_AS = "openai:gpt-4o";
  const priced = (models: Parameters<typeof mockResolver>[0]) => {
    const resolve = mockResolver(models);
    return (spec: string): ResolvedModel => ({ ...resolve(spec), spec: PRICED_AS });
  };
  const reading = (inputTokens: number, outputTokens: number) =>
    withUsage(toolStep([{ id: "r", name: "read_shared_context", input: {} }]), inputTokens, outputTokens);
  const sum = <T>(items: T[], pick: (item: T) => number) => items.reduce((total, item) => total + pick(item), 0);

  /**
   * What `run.finished` announced and the run's steps and recorded model calls; the run's row
   * holds the totals it announced.
   */
  async function totalsOf(roomId: string, runId: string) {
    const { steps, finished } = await runEvents(roomId, runId);
    expect(finished).toHaveLength(1);
    const totals = finished[0]!;
    const row = await runRow(runId);
    expect(totals).toMatchObject({ inputTokens: row.inputTokens, outputTokens: row.outputTokens });
    expect(totals.costUsd).toBeCloseTo(row.costUsd, 10);
    const calls = await database.db
      .select()
      .from(runModelCalls)
      .where(eq(runModelCalls.runId, runId))
      .orderBy(asc(runModelCalls.attempt), asc(runModelCalls.call));
    return { steps, totals, calls };
  }

  /** Runs the Songwriter on `model` with one worker, until the room has nothing left to do. */
  async function runToTheEnd(roomId: string, model: LanguageModelV4): Promise<string> {
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    await setAgentModel(database, songwriter.id, "mock:model");
    const worker = await startTestWorker(database, { resolveModel: priced({ model }) });
    try {
      const run = await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Write about rain" }, alice);
      await settled(roomId);
      return run.id;
    } finally {
      await worker.stop();
    }
  }

  /** Starts the Songwriter on `losing`: its first worker loses the run as the model has it, and a second finishes it. */
  async function runLosingLease(roomId: string, losing: ReturnType<typeof losingLeaseAt>) {
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    await setAgentModel(database, songwriter.id, "mock:losing");
    const resolveModel = priced({ losing: losing.model });
    const run = await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Write about rain" }, alice);
    losing.state.runId = run.id;
    const claimed = await claimNextRun(database.db, { owner: "worker-that-loses", leaseMs: 5000 });
    expect(claimed?.id).toBe(run.id);
    const outcome = await executeRun({ database, bus, resolveModel }, claimed!, {
      owner: "worker-that-loses",
      signal: new AbortController().signal,
      stopReason: () => null,
    });
    expect(outcome).toBeNull();
    const survivor = await startTestWorker(database, { resolveModel });
    try {
      await settled(roomId);
    } finally {
      await survivor.stop();
    }
    return run;
  }

  it("are the sum of its steps when nothing goes wrong, one recorded model call per step", async () => {
    const { roomId } = await createTestRoom(database.db);
    const model = scriptedSteps([reading(10, 1), reading(20, 2), withUsage(textStep("Done."), 30, 3)]);
    const runId = await runToTheEnd(roomId, model);

    const { steps, totals, calls } = await totalsOf(roomId, runId);
    expect(steps.map((step) => step.inputTokens)).toEqual([10, 20, 30]);
    expect(totals).toMatchObject({
      status: "succeeded",
      attempts: 1,
      steps: 3,
      inputTokens: sum(steps, (step) => step.inputTokens),
      outputTokens: sum(steps, (step) => step.outputTokens),
    });
    expect(totals.costUsd).toBeGreaterThan(0);
    expect(totals.costUsd).toBeCloseTo(
      sum(steps, (step) => step.costUsd),
      10,
    );
    expect(calls.map(({ attempt, call, step }) => ({ attempt, call, step }))).toEqual(
      steps.map((step, index) => ({ attempt: 1, call: index, step: step.step })),
    );
    const figures = (of: { inputTokens: number; outputTokens: number; costUsd: number }) => [of.inputTokens, of.outputTokens, of.costUsd];
    expect(calls.map(figures)).toEqual(steps.map(figures));
  });

  it("count once the call of a step lost after the model answered, and the call that took it again", async () => {
    const { roomId } = await createTestRoom(database.db);
    const steps = [toolStep([{ id: "n1", name: "create_node", input: { text: "Rain taps the glass", kind: "lyric" } }]), textStep("Done.")];
    const run = await runLosingLease(roomId, losingLeaseAt(steps, 0, { inputTokens: 100, outputTokens: 50 }));

    const { steps: saved, totals, calls } = await totalsOf(roomId, run.id);
    expect(saved.map((step) => step.step)).toEqual([0, 1]);
    expect(totals).toMatchObject({
      status: "succeeded",
      attempts: 2,
      steps: 2,
      inputTokens: sum(saved, (step) => step.inputTokens) + 100,
      outputTokens: sum(saved, (step) => step.outputTokens) + 50,
    });
    expect(totals.costUsd).toBeCloseTo(costOf(PRICED_AS, totals.inputTokens, totals.outputTokens), 10);
    expect(calls.map(({ attempt, step, inputTokens }) => ({ attempt, step, inputTokens }))).toEqual([
      { attempt: 1, step: 0, inputTokens: 100 },
      { attempt: 2, step: 0, inputTokens: 12 },
      { attempt: 2, step: 1, inputTokens: 12 },
    ]);
  });

  it("count a saved step once and each call of a step taken again on resume", async () => {
    const { roomId } = await createTestRoom(database.db);
    // Step 0 is saved; the first worker loses the run while the model answers step 1, which
    // the second worker takes again before step 2.
    const losing = losingLeaseAt([reading(10, 1), reading(20, 2), withUsage(textStep("Done."), 30, 3)], 1, {
      inputTokens: 100,
      outputTokens: 50,
    });
    const run = await runLosingLease(roomId, losing);

    const { steps, totals, calls } = await totalsOf(roomId, run.id);
    expect(steps.map((step) => [step.step, step.inputTokens])).toEqual([
      [0, 10],
      [1, 20],
      [2, 30],
    ]);
    expect(totals).toMatchObject({ status: "succeeded", attempts: 2, steps: 3, inputTokens: 160, outputTokens: 56 });
    expect(totals.costUsd).toBeCloseTo(costOf(PRICED_AS, 160, 56), 10);
    expect(calls.map(({ attempt, call, step, inputTokens }) => ({ attempt, call, step, inputTokens }))).toEqual([
      { attempt: 1, call: 0, step: 0, inputTokens: 10 },
      { attempt: 1, call: 1, step: 1, inputTokens: 100 },
      { attempt: 2, call: 0, step: 1, inputTokens: 20 },
      { attempt: 2, call: 1, step: 2, inputTokens: 30 },
    ]);
  });

  it("count the model call of a step whose save failed", async () => {
    const { roomId } = await createTestRoom(database.db);
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    await setAgentModel(database, songwriter.id, "mock:answering");
    const model = scriptedSteps([withUsage(textStep("Done."), 40, 4)]);
    const run = await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Write about rain" }, alice);
    const claimed = await claimNextRun(database.db, { owner: "worker-whose-save-fails", leaseMs: 5000 });
    const outcome = await executeRun({ database: failingStepSaves(database), bus, resolveModel: priced({ answering: model }) }, claimed!, {
      owner: "worker-whose-save-fails",
      signal: new AbortController().signal,
      stopReason: () => null,
    });
    expect(outcome).toMatchObject({ status: "failed", error: { error_message: "connection lost" } });

    const { steps, totals, calls } = await totalsOf(roomId, run.id);
    expect(steps).toEqual([]);
    expect(totals).toMatchObject({ status: "failed", steps: 0, inputTokens: 40, outputTokens: 4 });
    expect(totals.costUsd).toBeCloseTo(costOf(PRICED_AS, 40, 4), 10);
    expect(calls).toHaveLength(1);
  });

  it("count a call retried after a provider error once, and the failed call not at all", async () => {
    const { roomId } = await createTestRoom(database.db);
    let calls = 0;
    const model = new MockLanguageModelV4({
      doStream: async () => {
        calls += 1;
        if (calls === 1) {
          throw new APICallError({
            message: "Service unavailable",
            url: "http://provider.test/v1/chat/completions",
            requestBodyValues: {},
            statusCode: 503,
            responseHeaders: { "retry-after-ms": "0" },
            isRetryable: true,
          });
        }
        return { stream: convertArrayToReadableStream(withUsage(textStep("Done."), 40, 4)) };
      },
    });
    const runId = await runToTheEnd(roomId, model);

    expect(model.doStreamCalls).toHaveLength(2);
    const { steps, totals, calls: recorded } = await totalsOf(roomId, runId);
    expect(steps.map((step) => step.inputTokens)).toEqual([40]);
    expect(totals).toMatchObject({ status: "succeeded", inputTokens: 40, outputTokens: 4 });
    expect(recorded.map(({ step, inputTokens }) => ({ step, inputTokens }))).toEqual([{ step: 0, inputTokens: 40 }]);
  });
});

/** The same database, except that saving a run's step fails, as when the connection drops while it saves. */
function failingStepSaves(database: TestDatabase): Database {
  const failingSaves = <T extends object>(tx: T): T =>
    new Proxy(tx, {
      get(target, property) {
        const value = Reflect.get(target, property, target);
        if (property !== "insert") return typeof value === "function" ? value.bind(target) : value;
        return (table: unknown) => {
          if (table === runSteps) throw new Error("connection lost");
          return (value as (table: unknown) => unknown).call(target, table);
        };
      },
    });
  const db = new Proxy(database.db, {
    get(target, property) {
      if (property === "transaction") {
        const transaction = target.transaction as (...args: unknown[]) => Promise<unknown>;
        return (work: (tx: never) => Promise<unknown>, ...rest: unknown[]) =>
          transaction.call(target, (tx: object) => work(failingSaves(tx) as never), ...rest);
      }
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { ...database, db };
}
