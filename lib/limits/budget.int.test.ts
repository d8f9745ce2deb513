import { randomUUID } from "node:crypto";
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { and, eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { agentNotes, agents, brainstorms, broadcastResponses, broadcasts, buildReviews, runs, spendReservations } from "@/db/schema";
import { enqueueRun } from "@/lib/agents/enqueue-run";
import { PendingModelCalls } from "@/lib/agents/record-model-call";
import { startAgentRun } from "@/lib/agents/start-agent-run";
import { scheduleRoom } from "@/lib/agents/scheduler";
import { AppError } from "@/lib/errors";
import { readEventsAfter } from "@/lib/events/read-events";
import { writeRoomEvents } from "@/lib/events/write-room-events";
import type { ResolvedModel } from "@/lib/models/registry";
import type { PayloadOf } from "@/lib/protocol";
import { getRoomSnapshot } from "@/lib/rooms/get-room-snapshot";
import { agentByPersona, startTestWorker } from "@/test/agents";
import { askOthers } from "@/lib/broadcast/ask-others";
import { startBrainstorm } from "@/lib/brainstorm/start-brainstorm";
import { startBuildReview } from "@/lib/build-review/start-build-review";
import { sendCommand } from "@/lib/commands/send-command";
import { createRoom } from "@/lib/rooms/create-room";
import { broadcastDeps, latencyResolver, testSeat } from "@/test/broadcasts";
import { alice, createTestRoom, eventually } from "@/test/fixtures";
import { gate, scriptedSteps, setAgentModel, textStep, toolStep, withUsage } from "@/test/mock-models";
import { inputTokensOf } from "@/lib/agents/reserve-calls";
import { type TestDatabase, createTestDatabase } from "@/test/test-database";
import { budgetPeriods, readTodaysBudgets, workflowCapReached } from "./budget";

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database.destroy();
});
afterEach(() => {
  vi.unstubAllEnvs();
});

/**
 * Records model calls that spent `tokens` and `costUsd` in a finished run of the room's Songwriter
 * (or of the agent `persona`), in workflow `correlationId`.
 */
async function spend(roomId: string, usage: { tokens: number; costUsd: number; correlationId?: string; calls?: number; persona?: string }) {
  const spender = await agentByPersona(database, roomId, usage.persona ?? "songwriter");
  const id = randomUUID();
  await database.db.insert(runs).values({
    id,
    roomId,
    agentId: spender.id,
    status: "succeeded",
    trigger: "human",
    requestedBy: "human:alice",
    prompt: "Earlier work",
    correlationId: usage.correlationId ?? `earlier-${id}`,
  });
  // Recorded the way a run records its model calls: the calls, the run's totals, the hour's usage.
  const calls = new PendingModelCalls(id, database);
  const count = usage.calls ?? 1;
  for (let call = 0; call < count; call++) {
    calls.add({
      attempt: 1,
      call,
      step: call,
      inputTokens: Math.floor(usage.tokens / count),
      outputTokens: 0,
      costUsd: usage.costUsd / count,
    });
  }
  await calls.flush();
}

/**
 * A run of `agent` that succeeded yesterday using `tokens` (in and out): what estimates of its
 * next runs go by, spending nothing today.
 */
async function pastRun(agent: { id: string; roomId: string }, tokens: { input: number; output?: number }) {
  const id = randomUUID();
  await database.db.insert(runs).values({
    id,
    roomId: agent.roomId,
    agentId: agent.id,
    status: "succeeded",
    trigger: "human",
    requestedBy: "human:alice",
    prompt: "Yesterday's work",
    correlationId: `past-${id}`,
    inputTokens: tokens.input,
    outputTokens: tokens.output ?? 0,
    createdAt: new Date(Date.now() - 86_400_000),
  });
}

/** Queues a run of the room's Songwriter as another agent's request would (no budget check on the way in). */
async function queueRun(roomId: string, correlationId?: string) {
  const songwriter = await agentByPersona(database, roomId, "songwriter");
  const { result } = await writeRoomEvents(database.db, roomId, (tx, emit, at) =>
    enqueueRun(tx, emit, {
      roomId,
      agentId: songwriter.id,
      trigger: "request",
      requestedBy: { id: "someone", name: "Someone" },
      prompt: "Write a verse.",
      correlationId,
      at,
    }),
  );
  return result!;
}

/**
 * Queues a run of the room's Songwriter as a request would and lets a worker come to it: the run
 * as it ended, the `limit.reached` that ended it, and how many model calls were made.
 */
async function queueUnclaimable(roomId: string, songwriterId: string) {
  const scripted = scriptedSteps(FOUR_STEPS);
  await setAgentModel(database, songwriterId, "mock:four");
  const worker = await startTestWorker(database, {
    resolveModel: () => ({ model: scripted, provider: "script", modelId: "four", spec: "mock:four", scripted: true }),
  });
  try {
    const queued = await queueRun(roomId);
    const finished = await settledRun(queued.id);
    const limit = (await eventsOf(roomId)).find((event) => event.type === "limit.reached" && event.payload.runId === queued.id)!
      .payload as PayloadOf<"limit.reached">;
    return { queued, finished, limit, calls: scripted.doStreamCalls.length };
  } finally {
    await worker.stop();
  }
}

async function settledRun(runId: string) {
  return eventually(async () => {
    const [run] = await database.db.select().from(runs).where(eq(runs.id, runId));
    expect(["succeeded", "failed", "cancelled"]).toContain(run!.status);
    return run!;
  }, 15_000);
}

async function eventsOf(roomId: string) {
  return readEventsAfter(database.db, roomId, 0, 5000);
}

/** A model priced like gpt-4o, whatever it is: its calls cost what the price table says. */
function pricedAs(spec: string, model: LanguageModelV4) {
  return (): ResolvedModel => ({ model, provider: "openai", modelId: spec, spec, scripted: false });
}

const FOUR_STEPS = [
  toolStep([{ id: "a", name: "create_node", input: { text: "one", x: 0, y: 0 } }]),
  toolStep([{ id: "b", name: "create_node", input: { text: "two", x: 200, y: 0 } }]),
  toolStep([{ id: "c", name: "create_node", input: { text: "three", x: 400, y: 0 } }]),
  textStep("Done."),
];

describe("daily budgets", () => {
  it("read what the instance and a room spent today, and what is left", async () => {
    vi.stubEnv("PARLEY_INSTANCE_DAILY_TOKENS", "0");
    vi.stubEnv("PARLEY_INSTANCE_DAILY_COST_USD", "0");
    const { roomId, room } = await createTestRoom(database.db, { daily_token_budget: 1000, daily_cost_budget_usd: 2 });
    const other = await createTestRoom(database.db);
    await spend(roomId, { tokens: 400, costUsd: 0.5 });
    await spend(other.roomId, { tokens: 100, costUsd: 0.25 });
    const budgets = await readTodaysBudgets(database.db, {
      room: { id: roomId, settings: { daily_token_budget: 1000, daily_cost_budget_usd: 2 } },
    });
    expect(budgets.room).toMatchObject({
      roomId,
      today: { tokens: 400, costUsd: 0.5 },
      daily: { tokens: { limit: 1000, used: 400, left: 600 }, costUsd: { limit: 2, used: 0.5, left: 1.5 } },
    });
    // Without a daily limit the instance is checked against nothing, so what it spent is not read.
    expect(budgets.instance).toEqual({
      today: { tokens: 0, costUsd: 0 },
      daily: { tokens: { limit: null, used: 0, left: null }, costUsd: { limit: null, used: 0, left: null } },
    });
    expect(Date.parse(budgets.day.end) - Date.parse(budgets.day.start)).toBe(24 * 3600 * 1000);
    vi.stubEnv("PARLEY_INSTANCE_DAILY_TOKENS", "1000000");
    const limited = await readTodaysBudgets(database.db);
    expect(limited.room).toBeNull();
    expect(limited.instance.today.tokens).toBeGreaterThanOrEqual(500);
    expect(limited.instance.daily.tokens).toMatchObject({ limit: 1_000_000, used: limited.instance.today.tokens });

    // Yesterday's spending is not today's.
    const tomorrow = new Date(Date.parse(budgets.day.end) + 1000);
    const later = await readTodaysBudgets(database.db, {
      room: { id: room.id, settings: { daily_token_budget: 1000, daily_cost_budget_usd: 2 } },
      now: tomorrow,
    });
    expect(later.room!.today).toEqual({ tokens: 0, costUsd: 0 });

    const snapshot = await getRoomSnapshot(database.db, roomId);
    expect(snapshot.budget).toMatchObject({
      tokensLeft: 600,
      tokenLimit: 1000,
      costLeftUsd: 1.5,
      costLimitUsd: 2,
      resetsAt: budgets.day.end,
    });
  });

  it("puts a day's and a week's bounds in UTC, weeks starting on Monday", () => {
    const sunday = budgetPeriods(new Date("2026-03-01T23:30:00Z"));
    expect(sunday.dayStart.toISOString()).toBe("2026-03-01T00:00:00.000Z");
    expect(sunday.weekStart.toISOString()).toBe("2026-02-23T00:00:00.000Z");
    expect(sunday.weekEnd.toISOString()).toBe("2026-03-02T00:00:00.000Z");
  });

  it("refuse to start a run once the room's budget is spent, telling the room and queuing nothing, and end queued runs at their claim", async () => {
    const { roomId } = await createTestRoom(database.db, { daily_token_budget: 500 });
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    await spend(roomId, { tokens: 500, costUsd: 0 });
    const before = (await eventsOf(roomId)).length;

    const refused = await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Go" }, alice).catch(
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ status: 429, code: "budget_exceeded" });
    expect((refused as AppError).message).toMatch(/room's daily token budget is spent \(500 of 500 tokens/);
    expect(Number((refused as AppError).headers!["Retry-After"])).toBeGreaterThan(0);
    // The room (its feed, and the dashboard's log of it) is told; no run is queued.
    const told = (await eventsOf(roomId)).slice(before);
    expect(told.map((event) => event.type)).toEqual(["limit.reached"]);
    expect(told[0]!.payload).toMatchObject({ limit: "room_daily_tokens", runId: null, agentId: songwriter.id, used: 500, allowed: 500 });
    expect(told[0]!.payload).not.toHaveProperty("expected");

    const { queued, finished, limit, calls } = await queueUnclaimable(roomId, songwriter.id);
    expect(finished.status).toBe("failed");
    expect(finished.error).toMatchObject({ error_type: "room_daily_tokens" });
    expect(calls).toBe(0);
    expect(limit).toMatchObject({ limit: "room_daily_tokens", runId: queued.id, used: 500, allowed: 500 });
    expect(limit.expected).toBeUndefined();
    expect((await eventsOf(roomId)).some((event) => event.type === "run.started" && event.payload.runId === queued.id)).toBe(false);
  });

  /**
   * Runs the Songwriter of a room with `budget` tokens a day to its end on `steps`, after a run
   * yesterday that took `pastTokens`: the run's row, the model, and the `limit.reached` that stopped it.
   */
  async function runAgainstTokenBudget(budget: number, pastTokens: number, steps: ReturnType<typeof scriptedSteps>) {
    const { roomId } = await createTestRoom(database.db, { daily_token_budget: budget });
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    await pastRun(songwriter, { input: pastTokens });
    await setAgentModel(database, songwriter.id, "mock:steps");
    const worker = await startTestWorker(database, {
      resolveModel: () => ({ model: steps, provider: "script", modelId: "steps", spec: "mock:steps", scripted: true }),
    });
    try {
      const run = await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Go" }, alice);
      const finished = await settledRun(run.id);
      const events = await eventsOf(roomId);
      const types = events.map((event) => event.type);
      expect(types.lastIndexOf("limit.reached")).toBe(types.lastIndexOf("run.finished") - 1);
      const reached = events.find((event) => event.type === "limit.reached")!.payload as PayloadOf<"limit.reached">;
      return { roomId, finished, reached };
    } finally {
      await worker.stop();
    }
  }

  it("refuse a model call that could go past the room's budget before it is made, saying what it could take and what is left", async () => {
    // Its runs took 38 tokens: within the 50, so this one starts. Its first call could take its
    // prompt and 4,096 tokens of output: far more than the 50, so it is not made.
    const scripted = scriptedSteps(FOUR_STEPS);
    const { roomId, finished, reached } = await runAgainstTokenBudget(50, 38, scripted);
    expect(finished.status).toBe("failed");
    expect(finished.error).toMatchObject({ error_type: "room_daily_tokens" });
    expect(scripted.doStreamCalls).toHaveLength(0);
    expect(finished.steps).toBe(0);
    expect(reached).toMatchObject({ limit: "room_daily_tokens", used: 0, allowed: 50 });
    expect(reached.expected).toBeGreaterThan(4096);
    expect(reached.message).toMatch(
      /^Songwriter's next model call could take up to [\d,]+ tokens \([\d,]+ tokens of input as sent and an output limit of 4,096\), more than this room's daily token budget has \(50 of 50 tokens left, counting the calls under way\)\. It is not made and the run stops here; the budget is whole again at midnight UTC\.$/,
    );
    // Nothing was spent and nothing is held: the room still has all of it.
    expect((await getRoomSnapshot(database.db, roomId)).budget).toMatchObject({ tokensLeft: 50, tokenLimit: 50 });
    expect(await database.db.select().from(spendReservations).where(eq(spendReservations.roomId, roomId))).toEqual([]);
  });

  it("count a call under way at the most it could take, and at what it took once it returns", async () => {
    const { roomId } = await createTestRoom(database.db, { daily_token_budget: 1_000_000 });
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    await setAgentModel(database, songwriter.id, "mock:held");
    await database.db
      .update(agents)
      .set({ modelOptions: { maxOutputTokens: 500 } })
      .where(eq(agents.id, songwriter.id));
    const held = gate();
    const scripted = scriptedSteps([withUsage(textStep("Done."), 300, 40)], { gate: held.promise });
    const worker = await startTestWorker(database, {
      resolveModel: () => ({ model: scripted, provider: "script", modelId: "held", spec: "mock:held", scripted: true }),
    });
    try {
      const run = await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Go" }, alice);
      // The call holds its prompt as sent and its output limit of 500 while it is under way.
      const [reservation] = await eventually(async () => {
        const rows = await database.db.select().from(spendReservations).where(eq(spendReservations.runId, run.id));
        expect(rows).toHaveLength(1);
        expect(scripted.doStreamCalls).toHaveLength(1);
        return rows;
      });
      expect(reservation!.tokens).toBe(inputTokensOf(scripted.doStreamCalls[0]!) + 500);
      expect((await getRoomSnapshot(database.db, roomId)).budget).toMatchObject({ tokensLeft: 1_000_000 - reservation!.tokens });
      held.release();
      const finished = await settledRun(run.id);
      expect(finished.status).toBe("succeeded");
      expect(finished.inputTokens + finished.outputTokens).toBe(340);
      expect(await database.db.select().from(spendReservations).where(eq(spendReservations.runId, run.id))).toEqual([]);
      expect((await getRoomSnapshot(database.db, roomId)).budget).toMatchObject({ tokensLeft: 1_000_000 - 340 });
    } finally {
      held.release();
      await worker.stop();
    }
  });

  it("refuse to start a run expected to go past the room's budget, saying which budget, what is left and what the run takes, queuing nothing", async () => {
    const { roomId } = await createTestRoom(database.db, { daily_token_budget: 1000 });
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    const storyteller = await agentByPersona(database, roomId, "storyteller");
    // The Songwriter's runs take 500 tokens on average (450, 450 and today's 600); the Storyteller's 180;
    // the room's 420.
    await pastRun(songwriter, { input: 300, output: 150 });
    await pastRun(songwriter, { input: 450 });
    await pastRun(storyteller, { input: 180 });
    await spend(roomId, { tokens: 600, costUsd: 0 });
    const before = (await eventsOf(roomId)).length;

    const refused = await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Go" }, alice).catch(
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ status: 429, code: "budget_exceeded" });
    expect((refused as AppError).message).toBe(
      "A run of Songwriter would go past this room's daily token budget: 600 of 1,000 tokens used today, 400 tokens left; " +
        "a run takes about 500 tokens (the average of its last 3 runs). It is not started; the budget is whole again at midnight UTC.",
    );
    expect(Number((refused as AppError).headers!["Retry-After"])).toBeGreaterThan(0);
    const told = (await eventsOf(roomId)).slice(before);
    expect(told.map((event) => event.type)).toEqual(["limit.reached"]);
    expect(told[0]!.payload).toMatchObject({
      limit: "room_daily_tokens",
      runId: null,
      agentId: songwriter.id,
      used: 600,
      allowed: 1000,
      expected: 500,
    });
    expect((await database.db.select().from(runs).where(eq(runs.roomId, roomId))).filter((run) => run.status === "queued")).toHaveLength(0);

    // A cheaper agent fits in what is left.
    const story = await startAgentRun(database.db, roomId, { agentId: storyteller.id, prompt: "Tell it" }, alice);
    await database.db.update(runs).set({ status: "cancelled" }).where(eq(runs.id, story.id));
    // An agent without runs of its own is expected to take what the room's runs took.
    const curator = await agentByPersona(database, roomId, "curator");
    const byRoom = await startAgentRun(database.db, roomId, { agentId: curator.id, prompt: "Curate" }, alice).catch(
      (error: unknown) => error,
    );
    expect((byRoom as AppError).message).toMatch(
      /a run takes about 420 tokens \(the average of this room's last 4 runs, as Creative Curator has no run of its own yet\)/,
    );

    // A run queued another way is ended when claimed, the room told why with the figures; nothing is called.
    const { queued, finished, limit, calls } = await queueUnclaimable(roomId, songwriter.id);
    expect(finished.error).toMatchObject({
      error_type: "room_daily_tokens",
      error_message: expect.stringMatching(/^A run of Songwriter would go past this room's daily token budget/),
    });
    expect(calls).toBe(0);
    expect(limit).toMatchObject({
      limit: "room_daily_tokens",
      runId: queued.id,
      agentId: songwriter.id,
      used: 600,
      allowed: 1000,
      expected: 500,
    });
    // The room still has its 400 tokens for agents that fit.
    expect((await getRoomSnapshot(database.db, roomId)).budget).toMatchObject({ tokensLeft: 400, tokenLimit: 1000 });
  });

  it("price a run's expected cost at its agent's model now, and let the scheduler pass over a turn its agent would go past", async () => {
    vi.stubEnv("PARLEY_INSTANCE_DAILY_COST_USD", "0");
    const { roomId } = await createTestRoom(database.db, {
      daily_cost_budget_usd: 0.05,
      scheduler_enabled: true,
      scheduler_needs_viewers: false,
    });
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    // 2,000 tokens in and 2,000 out: $0.025 at gpt-4o's prices, nothing on the offline model.
    await pastRun(songwriter, { input: 2000, output: 2000 });
    await spend(roomId, { tokens: 0, costUsd: 0.03 });
    await setAgentModel(database, songwriter.id, "openai:gpt-4o");
    const refused = await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Go" }, alice).catch(
      (error: unknown) => error,
    );
    expect((refused as AppError).message).toMatch(
      /^A run of Songwriter would go past this room's daily cost budget: \$0\.0300 of \$0\.0500 used today, \$0\.0200 left; a run takes about \$0\.0250 \(the average of its last run\)/,
    );
    // Every agent here is expected to cost what the Songwriter's run did, so the scheduler queues none.
    for (const agent of await database.db.select().from(agents).where(eq(agents.roomId, roomId)))
      await setAgentModel(database, agent.id, "openai:gpt-4o");
    expect(await scheduleRoom(database.db, roomId)).toEqual({ kind: "skipped", reason: "over_budget" });
    expect(
      await database.db
        .select()
        .from(runs)
        .where(and(eq(runs.roomId, roomId), eq(runs.status, "queued"))),
    ).toHaveLength(0);

    await setAgentModel(database, songwriter.id, "script:songwriter");
    const free = await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Go" }, alice);
    expect(free.status).toBe("queued");
  });

  it("of the instance stop runs in every room, and the scheduler starts none", async () => {
    vi.stubEnv("PARLEY_INSTANCE_DAILY_COST_USD", "0.5");
    const spender = await createTestRoom(database.db);
    await spend(spender.roomId, { tokens: 10, costUsd: 0.6 });
    const { roomId } = await createTestRoom(database.db, { scheduler_enabled: true, scheduler_needs_viewers: false });
    const worker = await startTestWorker(database);
    try {
      const queued = await queueRun(roomId);
      const finished = await settledRun(queued.id);
      expect(finished.error).toMatchObject({ error_type: "instance_daily_cost" });
      expect(finished.error).toMatchObject({
        error_message: expect.stringMatching(/server.s daily cost budget is spent \(\$[0-9.]+ of \$0\.50 used today\)/),
      });
      expect(await scheduleRoom(database.db, roomId)).toEqual({ kind: "skipped", reason: "budget_spent" });
    } finally {
      await worker.stop();
    }
  });
});

describe("the workflow cost cap", () => {
  it("counts what the workflow's calls cost as recorded, and refuses the call its largest so far would take past the cap", async () => {
    const { roomId } = await createTestRoom(database.db, { workflow_cost_cap_usd: 0.3 });
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    const next = { id: "next-run", roomId, agentId: songwriter.id, correlationId: "workflow-counted" };
    const settings = { workflow_cost_cap_usd: 0.3 };
    // Calls recorded as they returned, whether or not their steps were saved: $0.10 and $0.05.
    await spend(roomId, { tokens: 100, costUsd: 0.1, correlationId: "workflow-counted" });
    await spend(roomId, { tokens: 100, costUsd: 0.05, correlationId: "workflow-counted" });
    // $0.15 spent, and a next call of about $0.10 makes $0.25: within the cap. Another workflow's $0.12 does not count.
    await spend(roomId, { tokens: 100, costUsd: 0.12, correlationId: "workflow-elsewhere" });
    expect(await workflowCapReached(database.db, next, settings)).toBeNull();
    // $0.20 and $0.10 more reach the cap exactly (in floating point, a hair over it): still allowed.
    await spend(roomId, { tokens: 100, costUsd: 0.05, correlationId: "workflow-counted" });
    expect(await workflowCapReached(database.db, next, settings)).toBeNull();
    // $0.21 and $0.10 more would pass it: the call is not made.
    await spend(roomId, { tokens: 100, costUsd: 0.01, correlationId: "workflow-counted" });
    const reached = await workflowCapReached(database.db, next, settings);
    expect(reached).toMatchObject({ limit: "workflow_cost", runId: "next-run", agentId: songwriter.id, allowed: 0.3, resetsAt: null });
    expect(reached!.used).toBeCloseTo(0.21, 9);
    expect(reached!.message).toBe(
      "This workflow has spent $0.21 of its $0.30 cap; its next model call (about $0.10) would cross it, so its agents stop here. Other workflows go on.",
    );
    expect(await workflowCapReached(database.db, { ...next, correlationId: "workflow-elsewhere" }, settings)).toBeNull();
  });

  it("counts what its questions' shadows answered, and asks no shadow once a call would cross the cap", async () => {
    const { roomId } = await createTestRoom(database.db, { workflow_cost_cap_usd: 0.3, broadcast: "agents" });
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    await spend(roomId, { tokens: 100, costUsd: 0.1, correlationId: "workflow-asking" });
    const [asked] = await database.db
      .insert(broadcasts)
      .values({
        id: randomUUID(),
        roomId,
        agentId: songwriter.id,
        agentName: "Songwriter",
        question: "Rain?",
        correlationId: "workflow-asking",
        mode: "agents",
        status: "complete",
        deadlineAt: null,
      })
      .returning();
    await database.db.insert(broadcastResponses).values([
      {
        id: randomUUID(),
        broadcastId: asked!.id,
        roomId,
        responderId: "painter",
        responderName: "Scene Painter",
        isHuman: false,
        content: "Rain.",
        costUsd: 0.12,
      },
      {
        id: randomUUID(),
        broadcastId: asked!.id,
        roomId,
        responderId: "human:ada",
        responderName: "Ada",
        isHuman: true,
        content: "Lamps.",
        costUsd: 0,
      },
    ]);
    // $0.10 from a run's call and $0.12 from a shadow's answer; the next call, about $0.12, would pass $0.30.
    const reached = await workflowCapReached(
      database.db,
      { id: "next", roomId, agentId: songwriter.id, correlationId: "workflow-asking" },
      { workflow_cost_cap_usd: 0.3 },
    );
    expect(reached!.used).toBeCloseTo(0.22, 9);

    let resolved = 0;
    const deps = await broadcastDeps(database, (spec: string) => {
      resolved += 1;
      return latencyResolver(spec);
    });
    try {
      const ask = (correlationId: string, question: string) =>
        askOthers(deps, { roomId, asker: songwriter, runId: null, correlationId, question });
      // The workflow's next question asks no model on behalf of any shadow.
      expect((await ask("workflow-asking", "Rain or the streetlights, which should lead?")).responses).toHaveLength(0);
      expect(resolved).toBe(0);
      // Another workflow's question is answered by every shadow.
      expect((await ask("workflow-other", "Which light should the scene have?")).responses).toHaveLength(4);
      expect(resolved).toBe(4);
    } finally {
      await deps.stop();
    }
  });

  it("stops a workflow before the call that would cross it, while other workflows go on", async () => {
    // Each call: 1,000 tokens in and out at gpt-4o's prices, $0.0125; reserved before it is made
    // as its prompt plus 500 tokens of output. Two calls spend $0.025; a third could make more
    // than $0.03, the cap, so it is not made.
    vi.stubEnv("PARLEY_INSTANCE_DAILY_COST_USD", "0");
    const { roomId } = await createTestRoom(database.db, { workflow_cost_cap_usd: 0.03, daily_cost_budget_usd: 0 });
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    const storyteller = await agentByPersona(database, roomId, "storyteller");
    const long = scriptedSteps(FOUR_STEPS.map((step) => withUsage(step, 1000, 1000)));
    const short = scriptedSteps([FOUR_STEPS[0]!, FOUR_STEPS[3]!].map((step) => withUsage(step, 1000, 1000)));
    await setAgentModel(database, songwriter.id, "mock:long");
    await setAgentModel(database, storyteller.id, "mock:short");
    await database.db
      .update(agents)
      .set({ modelOptions: { maxOutputTokens: 500 } })
      .where(eq(agents.roomId, roomId));
    const worker = await startTestWorker(database, {
      resolveModel: (spec) => pricedAs("openai:gpt-4o", spec === "mock:short" ? short : long)(),
    });
    try {
      const capped = await queueRun(roomId, "workflow-capped");
      const stopped = await settledRun(capped.id);
      expect(stopped.status).toBe("failed");
      expect(stopped.error).toMatchObject({ error_type: "workflow_cost" });
      expect(long.doStreamCalls).toHaveLength(2);
      expect(stopped.costUsd).toBeCloseTo(0.025, 6);
      const reached = (await eventsOf(roomId)).find((event) => event.type === "limit.reached")!;
      expect(reached.correlation_id).toBe("workflow-capped");
      expect(reached.payload).toMatchObject({ limit: "workflow_cost", allowed: 0.03, runId: capped.id });

      // A later run of the same workflow is not started; a run of another workflow goes on to its end.
      const again = await queueRun(roomId, "workflow-capped");
      expect((await settledRun(again.id)).error).toMatchObject({ error_type: "workflow_cost" });
      expect(long.doStreamCalls).toHaveLength(2);
      const { result: other } = await writeRoomEvents(database.db, roomId, (tx, emit, at) =>
        enqueueRun(tx, emit, {
          roomId,
          agentId: storyteller.id,
          trigger: "request",
          requestedBy: { id: "someone", name: "Someone" },
          prompt: "Tell it.",
          correlationId: "workflow-free",
          at,
        }),
      );
      const finished = await settledRun(other!.id);
      expect(finished.status).toBe("succeeded");
      expect(short.doStreamCalls).toHaveLength(2);
    } finally {
      await worker.stop();
    }
  });
});

describe("a spent budget refuses a person's start up front", () => {
  /** What a refusal left in the room: the events written since `before`, and what it threw. */
  async function refusedStart(roomId: string, before: number, start: Promise<unknown>) {
    const refused = await start.catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ status: 429, code: "budget_exceeded" });
    expect(Number((refused as AppError).headers!["Retry-After"])).toBeGreaterThan(0);
    const told = (await eventsOf(roomId)).slice(before);
    // Only the room's word of the refusal: nothing of the start itself.
    expect(told.map((event) => event.type)).toEqual(["limit.reached"]);
    return { message: (refused as AppError).message, reached: told[0]!.payload as PayloadOf<"limit.reached"> };
  }

  it("for a message that needs a run, writing neither the message nor a run; a message for a running agent is still delivered", async () => {
    const { roomId } = await createTestRoom(database.db, { daily_token_budget: 500 });
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    const storyteller = await agentByPersona(database, roomId, "storyteller");
    const seat = await testSeat(database, roomId, "Ada");
    await spend(roomId, { tokens: 500, costUsd: 0 });
    const before = (await eventsOf(roomId)).length;

    const { message, reached } = await refusedStart(roomId, before, sendCommand(database.db, roomId, seat, "@Songwriter write the chorus"));
    expect(message).toMatch(/^This room's daily token budget is spent \(500 of 500 tokens used today\)/);
    expect(reached).toMatchObject({ limit: "room_daily_tokens", runId: null, agentId: songwriter.id, used: 500, allowed: 500 });
    expect(await database.db.select().from(agentNotes).where(eq(agentNotes.roomId, roomId))).toHaveLength(0);
    expect(
      await database.db
        .select()
        .from(runs)
        .where(and(eq(runs.roomId, roomId), eq(runs.status, "queued"))),
    ).toHaveLength(0);

    // A run already running needs no new one: the message is kept for it, and its own check before its next step decides.
    const [running] = await database.db
      .insert(runs)
      .values({
        id: randomUUID(),
        roomId,
        agentId: storyteller.id,
        status: "running",
        trigger: "human",
        requestedBy: "human:ada",
        prompt: "Tell it",
        correlationId: "workflow-running",
      })
      .returning();
    const delivered = await sendCommand(database.db, roomId, seat, "@Storyteller make it rain");
    expect(delivered).toMatchObject({ kind: "message", command: { delivery: "next_step", runId: running!.id } });
  });

  it("for a brainstorm, writing no brainstorm and queuing no run", async () => {
    const { room } = await createRoom(
      database.db,
      { title: "Budgeted brainstorm", template: "brainstorm" },
      { settings: { daily_token_budget: 500 } },
    );
    await spend(room.id, { tokens: 500, costUsd: 0, persona: "cartographer" });
    const cartographer = await agentByPersona(database, room.id, "cartographer");
    const before = (await eventsOf(room.id)).length;
    const { message, reached } = await refusedStart(
      room.id,
      before,
      startBrainstorm(database.db, room.id, "How do we onboard new people?", alice),
    );
    expect(message).toMatch(/^This room's daily token budget is spent/);
    expect(reached).toMatchObject({ limit: "room_daily_tokens", runId: null, agentId: cartographer.id });
    expect(await database.db.select().from(brainstorms).where(eq(brainstorms.roomId, room.id))).toHaveLength(0);
    expect(
      await database.db
        .select()
        .from(runs)
        .where(and(eq(runs.roomId, room.id), eq(runs.status, "queued"))),
    ).toHaveLength(0);
  });

  it("for a build review, against the instance's budget too, writing no review and queuing no run", async () => {
    vi.stubEnv("PARLEY_INSTANCE_DAILY_TOKENS", "1");
    const { room } = await createRoom(database.db, { title: "Budgeted review", template: "build-review" }, {});
    const architect = await agentByPersona(database, room.id, "architect");
    await spend(room.id, { tokens: 1, costUsd: 0, persona: "architect" });
    const before = (await eventsOf(room.id)).length;
    const { message, reached } = await refusedStart(
      room.id,
      before,
      startBuildReview(database.db, room.id, "Count the words in a sentence", alice),
    );
    expect(message).toMatch(/^This server's daily token budget is spent/);
    expect(reached).toMatchObject({ limit: "instance_daily_tokens", runId: null, agentId: architect.id });
    expect(await database.db.select().from(buildReviews).where(eq(buildReviews.roomId, room.id))).toHaveLength(0);
    expect(
      await database.db
        .select()
        .from(runs)
        .where(and(eq(runs.roomId, room.id), eq(runs.status, "queued"))),
    ).toHaveLength(0);
  });
});

describe("a spent budget keeps the other agents from answering ask_others", () => {
  it("asks no shadow, and says why in the room and to the asker", async () => {
    const { roomId } = await createTestRoom(database.db, { daily_token_budget: 500, broadcast: "agents" });
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    let resolved = 0;
    const deps = await broadcastDeps(database, (spec: string) => {
      resolved += 1;
      return latencyResolver(spec);
    });
    try {
      const ask = (correlationId: string) =>
        askOthers(deps, {
          roomId,
          asker: songwriter,
          runId: null,
          correlationId,
          question: "Rain or the streetlights, which should lead?",
        });
      // With budget left every shadow answers.
      expect((await ask("workflow-before")).responses).toHaveLength(4);
      expect(resolved).toBe(4);

      await spend(roomId, { tokens: 500, costUsd: 0 });
      const before = (await eventsOf(roomId)).length;
      const asked = await ask("workflow-spent");
      expect(asked.responses).toHaveLength(0);
      expect(resolved).toBe(4);
      expect(asked).toMatchObject({
        status: "complete",
        note: expect.stringMatching(/^No agent answers Songwriter's question: this room's daily token budget is spent/),
      });
      const reached = (await eventsOf(roomId)).slice(before).find((event) => event.type === "limit.reached")!;
      expect(reached.correlation_id).toBe("workflow-spent");
      expect(reached.payload).toMatchObject({
        limit: "room_daily_tokens",
        agentId: songwriter.id,
        message: "note" in asked ? asked.note : "",
      });
    } finally {
      await deps.stop();
    }
  });
});
