import { randomUUID } from "node:crypto";
import { and, eq, inArray, sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { Database } from "@/db";
import { agents, runs, spendReservations } from "@/db/schema";
import { enqueueRun } from "@/lib/agents/enqueue-run";
import { startAgentRun } from "@/lib/agents/start-agent-run";
import { AppError } from "@/lib/errors";
import { readEventsAfter } from "@/lib/events/read-events";
import { writeRoomEvents } from "@/lib/events/write-room-events";
import type { ResolvedModel } from "@/lib/models/registry";
import type { PayloadOf } from "@/lib/protocol";
import { parseRoomSettings } from "@/lib/rooms/room-settings";
import { agentByPersona, startTestWorker } from "@/test/agents";
import { alice, createTestRoom, eventually } from "@/test/fixtures";
import { gate, scriptedSteps, textStep, withUsage } from "@/test/mock-models";
import { broadcastDeps } from "@/test/broadcasts";
import { askOthers } from "@/lib/broadcast/ask-others";
import { MockLanguageModelV4 } from "ai/test";
import { type TestDatabase, createTestDatabase, testDriver } from "@/test/test-database";
import { readRoomBudget } from "./budget";
import { callWorstCase, reserveSpend } from "./reserve-spend";

let database: TestDatabase;
/** The second instance's database: its own connection pool on PostgreSQL; PGlite serves one process. */
let second: Database;

beforeAll(async () => {
  database = await createTestDatabase();
  second = testDriver() === "postgres" ? await database.connectAgain() : database;
});
afterAll(async () => {
  if (second !== database) await second.close();
  await database.destroy();
});
afterEach(() => {
  vi.unstubAllEnvs();
});

/** Every call of the room's agents is priced as gpt-4o and answers with 2,000 tokens in and 1,000 out: $0.015. */
const PRICED = "openai:gpt-4o";
const CALL_USD = 0.015;

/** A room of eight agents on a priced model held to 1,000 output tokens a call, any number of them running at once. */
async function roomOfEight(settings: Parameters<typeof createTestRoom>[1]) {
  const { roomId } = await createTestRoom(database.db, { ...settings, max_concurrent_runs: 8 });
  const songwriter = await agentByPersona(database, roomId, "songwriter");
  const { id: _id, createdAt: _createdAt, ...copy } = songwriter;
  await database.db
    .insert(agents)
    .values([1, 2, 3].map((n) => ({ ...copy, id: randomUUID(), persona: `extra-${n}`, name: `Extra ${n}`, identity: `test/extra-${n}` })));
  await database.db
    .update(agents)
    .set({ model: PRICED, modelOptions: { maxOutputTokens: 1000 } })
    .where(eq(agents.roomId, roomId));
  const members = await database.db.select().from(agents).where(eq(agents.roomId, roomId));
  expect(members).toHaveLength(8);
  return { roomId, members };
}

/**
 * Queues a run of every agent of the room at once, as other agents' requests would, and lets two
 * workers — one per instance — take them while every model call is held: each call reserves or
 * is refused before the calls are let go. The runs as they ended, and the room's events.
 */
async function runAllAtOnce(roomId: string, members: { id: string }[], correlationId: (index: number) => string | undefined) {
  const held = gate();
  const model = scriptedSteps([withUsage(textStep("Done."), 2000, 1000)], { gate: held.promise });
  const resolveModel = (): ResolvedModel => ({ model, provider: "openai", modelId: "gpt-4o", spec: PRICED, scripted: false });
  const workers = await Promise.all([
    startTestWorker(database, { resolveModel, maxParallel: 8 }),
    startTestWorker(second, { resolveModel, maxParallel: 8 }),
  ]);
  try {
    const queued = await Promise.all(
      members.map(async (member, index) => {
        const { result } = await writeRoomEvents(database.db, roomId, (tx, emit, at) =>
          enqueueRun(tx, emit, {
            roomId,
            agentId: member.id,
            trigger: "request",
            requestedBy: { id: "someone", name: "Someone" },
            prompt: `Write verse ${index + 1}.`,
            correlationId: correlationId(index),
            at,
          }),
        );
        return result!.id;
      }),
    );
    // Every run has either reserved its call (and waits on the model) or been refused.
    await eventually(
      async () => {
        const ended = await database.db
          .select()
          .from(runs)
          .where(and(inArray(runs.id, queued), eq(runs.status, "failed")));
        const holding = await database.db.select().from(spendReservations).where(inArray(spendReservations.runId, queued));
        expect(ended.length + holding.length).toBe(queued.length);
      },
      30_000,
      50,
    );
    held.release();
    const finished = await eventually(
      async () => {
        const rows = await database.db.select().from(runs).where(inArray(runs.id, queued));
        for (const row of rows) expect(["succeeded", "failed"]).toContain(row.status);
        return rows;
      },
      30_000,
      50,
    );
    const events = await readEventsAfter(database.db, roomId, 0, 5000);
    return { finished, events, calls: model.doStreamCalls.length };
  } finally {
    held.release();
    await Promise.all(workers.map((worker) => worker.stop()));
  }
}

/** Every run the limit stopped told the room why, in its own `limit.reached`, before it finished. */
function expectEachRefusalExplained(
  finished: (typeof runs.$inferSelect)[],
  events: Awaited<ReturnType<typeof readEventsAfter>>,
  limit: PayloadOf<"limit.reached">["limit"],
) {
  const failed = finished.filter((run) => run.status === "failed");
  for (const run of failed) {
    expect(run.error).toMatchObject({ error_type: limit });
    const reached = events.filter(
      (event) => event.type === "limit.reached" && (event.payload as PayloadOf<"limit.reached">).runId === run.id,
    );
    expect(reached).toHaveLength(1);
    expect(reached[0]!.payload).toMatchObject({ limit });
  }
  return failed;
}

describe("spend reservations", () => {
  it("keep eight runs on two instances, started at once, within a room's daily cost budget", async () => {
    vi.stubEnv("PARLEY_INSTANCE_DAILY_COST_USD", "0");
    const cap = 0.05;
    const { roomId, members } = await roomOfEight({ daily_cost_budget_usd: cap });
    const { finished, events, calls } = await runAllAtOnce(roomId, members, () => undefined);

    const spent = finished.reduce((total, run) => total + run.costUsd, 0);
    expect(spent).toBeLessThanOrEqual(cap + 1e-9);
    const succeeded = finished.filter((run) => run.status === "succeeded");
    const failed = expectEachRefusalExplained(finished, events, "room_daily_cost");
    // Each call that was made is paid for; the others were refused before they were made.
    expect(succeeded.length).toBeGreaterThan(0);
    expect(failed.length).toBeGreaterThan(0);
    expect(calls).toBe(succeeded.length);
    expect(spent).toBeCloseTo(succeeded.length * CALL_USD, 9);
    // Without reservations all eight would have been made, $0.12 against $0.05.
    expect(succeeded.length * CALL_USD).toBeLessThanOrEqual(cap);
    expect(await database.db.select().from(spendReservations).where(eq(spendReservations.roomId, roomId))).toEqual([]);
  });

  it("keep eight runs of one workflow on two instances within the workflow's cost cap, while other workflows go on", async () => {
    vi.stubEnv("PARLEY_INSTANCE_DAILY_COST_USD", "0");
    const cap = 0.05;
    const { roomId, members } = await roomOfEight({ workflow_cost_cap_usd: cap, daily_cost_budget_usd: 0 });
    // Seven runs share one workflow; the eighth is a workflow of its own, with the whole cap for itself.
    const { finished, events } = await runAllAtOnce(roomId, members, (index) => (index < 7 ? "shared-workflow" : undefined));

    const shared = finished.filter((run) => run.correlationId === "shared-workflow");
    const spent = shared.reduce((total, run) => total + run.costUsd, 0);
    expect(spent).toBeLessThanOrEqual(cap + 1e-9);
    const failed = expectEachRefusalExplained(shared, events, "workflow_cost");
    expect(failed.length).toBeGreaterThan(0);
    expect(shared.some((run) => run.status === "succeeded")).toBe(true);
    const alone = finished.find((run) => run.correlationId !== "shared-workflow")!;
    expect(alone.status).toBe("succeeded");
  });

  it("let a crashed run's reservation lapse with its lease", async () => {
    vi.stubEnv("PARLEY_INSTANCE_DAILY_COST_USD", "0");
    const { roomId, room } = await createTestRoom(database.db, { daily_cost_budget_usd: 0.05 });
    const settings = parseRoomSettings(room.settings);
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    /** A run leased to `owner` for `ms` more milliseconds on the database's clock. */
    const leasedRun = async (owner: string, ms: number) => {
      const id = randomUUID();
      await database.db.insert(runs).values({
        id,
        roomId,
        agentId: songwriter.id,
        status: "running",
        trigger: "human",
        requestedBy: "human:alice",
        prompt: "Go",
        correlationId: `workflow-${id}`,
        leaseOwner: owner,
        leaseExpiresAt: sql`now() + ${`${ms} milliseconds`}::interval`,
      });
      return { id, roomId, agentId: songwriter.id, correlationId: `workflow-${id}`, leaseOwner: owner, agentName: "Songwriter" };
    };
    // A worker reserved $0.04 for a call and died: nothing will settle or give back its reservation.
    const crashed = await leasedRun("dead-worker:lease", 1500);
    expect(
      await reserveSpend(database.db, crashed, { inputTokens: 0, outputTokens: 4000, tokens: 4000, costUsd: 0.04 }, settings),
    ).toHaveProperty("reservationId");
    const live = await leasedRun("live-worker:lease", 60_000);
    const worst = callWorstCase(PRICED, 2000, 1000);
    expect(worst.costUsd).toBeCloseTo(0.015, 9);

    // While the lease holds, the reservation counts: the room shows $0.01 left and a $0.015 call does not fit.
    const refused = await reserveSpend(database.db, live, worst, settings);
    expect(refused.refused).toMatchObject({ limit: "room_daily_cost", used: 0.04, allowed: 0.05, expected: 0.015, runId: live.id });
    expect((await readRoomBudget(database.db, roomId, settings))?.costLeftUsd).toBeCloseTo(0.01, 9);

    // Once the lease has expired the reservation counts for nothing, though its row is still there.
    const fits = await eventually(
      async () => {
        const reservation = await reserveSpend(database.db, live, worst, settings);
        expect(reservation.reservationId).toBeDefined();
        return reservation;
      },
      15_000,
      200,
    );
    expect((await readRoomBudget(database.db, roomId, settings))?.costLeftUsd).toBeCloseTo(0.035, 9);
    // The lapsed reservation was swept away by the reservation that came after it.
    const left = await database.db.select().from(spendReservations).where(eq(spendReservations.roomId, roomId));
    expect(left.map((row) => row.id)).toEqual([fits.reservationId]);
  });
});

describe("a question's shadows", () => {
  it("reserve their answers under the asking run, and those that do not fit are not asked, each saying why", async () => {
    vi.stubEnv("PARLEY_INSTANCE_DAILY_COST_USD", "0");
    const cap = 0.03;
    const { roomId } = await createTestRoom(database.db, { daily_cost_budget_usd: cap, broadcast: "agents" });
    await database.db
      .update(agents)
      .set({ model: PRICED, modelOptions: { maxOutputTokens: 1000 } })
      .where(eq(agents.roomId, roomId));
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    const runId = randomUUID();
    await database.db.insert(runs).values({
      id: runId,
      roomId,
      agentId: songwriter.id,
      status: "running",
      trigger: "human",
      requestedBy: "human:alice",
      prompt: "Go",
      correlationId: "asking-workflow",
      leaseOwner: "test-worker:lease",
      leaseExpiresAt: sql`now() + interval '5 minutes'`,
    });
    // Each answer: 100 tokens in and 1,000 out, $0.01025, within what its call reserves; held until every shadow has reserved or been refused.
    const held = gate();
    let asked = 0;
    const model = new MockLanguageModelV4({
      doGenerate: async () => {
        asked += 1;
        await held.promise;
        return {
          content: [{ type: "text", text: "Rain." }],
          finishReason: { unified: "stop", raw: "stop" },
          usage: {
            inputTokens: { total: 100, noCache: 100, cacheRead: 0, cacheWrite: 0 },
            outputTokens: { total: 1000, text: 1000, reasoning: 0 },
          },
          warnings: [],
        };
      },
    });
    const deps = await broadcastDeps(
      database,
      (): ResolvedModel => ({ model, provider: "openai", modelId: "gpt-4o", spec: PRICED, scripted: false }),
    );
    try {
      const answered = askOthers(deps, { roomId, asker: songwriter, runId, correlationId: "asking-workflow", question: "Rain or lamps?" });
      const refusals = async () =>
        (await readEventsAfter(database.db, roomId, 0, 500)).filter(
          (event) => event.type === "limit.reached" && /does not answer Songwriter's question/.test(event.payload.message as string),
        );
      await eventually(
        async () => {
          const holding = await database.db.select().from(spendReservations).where(eq(spendReservations.runId, runId));
          expect(holding.length).toBe(asked);
          expect(holding.length + (await refusals()).length).toBe(4);
        },
        15_000,
        50,
      );
      held.release();
      const result = await answered;
      const refused = await refusals();
      expect(refused.length).toBeGreaterThan(0);
      expect(result.responses).toHaveLength(4 - refused.length);
      for (const event of refused) expect(event.payload).toMatchObject({ limit: "room_daily_cost", allowed: cap });
      // What the answers cost, counted for the room, stays within its budget; nothing is held any more.
      const budget = await readRoomBudget(database.db, roomId, parseRoomSettings({ daily_cost_budget_usd: cap }));
      expect(budget!.costLeftUsd).toBeCloseTo(cap - result.responses.length * 0.01025, 9);
      expect(budget!.costLeftUsd).toBeGreaterThanOrEqual(0);
      expect(await database.db.select().from(spendReservations).where(eq(spendReservations.runId, runId))).toEqual([]);
    } finally {
      held.release();
      await deps.stop();
    }
  });
});

describe("a start with nothing to go by", () => {
  it("is judged by its first call's output limit, not by another room's runs", async () => {
    // Another room's runs are small; this room has none, and 1,000 tokens left of its budget.
    const { roomId: elsewhere } = await createTestRoom(database.db);
    const other = await agentByPersona(database, elsewhere, "songwriter");
    await database.db.insert(runs).values({
      id: randomUUID(),
      roomId: elsewhere,
      agentId: other.id,
      status: "succeeded",
      trigger: "human",
      requestedBy: "human:alice",
      prompt: "Earlier",
      correlationId: `earlier-${randomUUID()}`,
      inputTokens: 100,
      outputTokens: 20,
    });
    const { roomId } = await createTestRoom(database.db, { daily_token_budget: 1000 });
    const songwriter = await agentByPersona(database, roomId, "songwriter");

    const refused = await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Go" }, alice).catch(
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ status: 429, code: "budget_exceeded" });
    expect((refused as AppError).message).toMatch(
      /^A run of Songwriter would go past this room's daily token budget: 0 of 1,000 tokens used today, 1,000 tokens left; a run takes about 4,096 tokens \(the output limit its first model call is held to, as neither Songwriter nor this room has a run to go by\)/,
    );
    const told = (await readEventsAfter(database.db, roomId, 0, 100)).filter((event) => event.type === "limit.reached");
    expect(told.map((event) => event.payload)).toEqual([expect.objectContaining({ limit: "room_daily_tokens", expected: 4096 })]);
    expect(await database.db.select().from(runs).where(eq(runs.roomId, roomId))).toEqual([]);

    // An agent held to fewer output tokens fits, and starts.
    await database.db
      .update(agents)
      .set({ modelOptions: { maxOutputTokens: 800 } })
      .where(eq(agents.id, songwriter.id));
    const started = await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Go" }, alice);
    expect(started.status).toBe("queued");
  });
});
