import { asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canvasNodes, rooms, runModelCalls, runs, usageHourly } from "@/db/schema";
import { createNode } from "@/lib/canvas/create-node";
import { readEventsAfter } from "@/lib/events/read-events";
import { RoomBus } from "@/lib/realtime/bus";
import { agentByPersona } from "@/test/agents";
import { alice, createTestRoom } from "@/test/fixtures";
import { interceptTransactions } from "@/test/intercept-transactions";
import { mockResolver, scriptedSteps, setAgentModel, textStep, toolStep, withUsage } from "@/test/mock-models";
import { refuseModelCalls } from "@/test/refuse-model-calls";
import { type TestDatabase, createTestDatabase } from "@/test/test-database";
import { claimNextRun } from "./claim-run";
import { executeRun } from "./execute-run";
import { PendingModelCalls } from "./record-model-call";
import { startAgentRun } from "./start-agent-run";

// Claims here take any room's runs, so this file keeps a database of its own.
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

/** Runs the Songwriter's next queued run on `steps`, with `beforeTransaction` seeing each write it makes. */
async function runSongwriter(
  steps: Parameters<typeof scriptedSteps>[0],
  beforeTransaction: (index: number, runId: string) => void | Promise<void>,
  prepare: (runId: string) => Promise<unknown> = async () => {},
) {
  const { roomId } = await createTestRoom(database.db);
  const songwriter = await agentByPersona(database, roomId, "songwriter");
  await setAgentModel(database, songwriter.id, "mock:model");
  const run = await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Write about rain" }, alice);
  const claimed = await claimNextRun(database.db, { owner: "recording-worker", leaseMs: 10_000 });
  expect(claimed?.id).toBe(run.id);
  await prepare(run.id);
  const watched = interceptTransactions(database, (index) => beforeTransaction(index, run.id));
  const outcome = await executeRun({ database: watched, bus, resolveModel: mockResolver({ model: scriptedSteps(steps) }) }, claimed!, {
    owner: "recording-worker",
    signal: new AbortController().signal,
    stopReason: () => null,
  });
  expect(outcome?.status).toBe("succeeded");
  return { roomId, runId: run.id };
}

const recordedCalls = (runId: string) =>
  database.db
    .select({ call: runModelCalls.call, step: runModelCalls.step, inputTokens: runModelCalls.inputTokens })
    .from(runModelCalls)
    .where(eq(runModelCalls.runId, runId))
    .orderBy(asc(runModelCalls.call));

/** What the run's writes are seen by: its recorded calls, the room's nodes, and the run's steps and tokens. */
interface Stored {
  calls: number;
  nodes: number;
  steps: number;
  inputTokens: number;
}

async function storedFor(runId: string): Promise<Stored> {
  const [run] = await database.db
    .select({ roomId: runs.roomId, steps: runs.steps, inputTokens: runs.inputTokens })
    .from(runs)
    .where(eq(runs.id, runId));
  const nodes = await database.db.select({ id: canvasNodes.id }).from(canvasNodes).where(eq(canvasNodes.roomId, run!.roomId));
  return { calls: (await recordedCalls(runId)).length, nodes: nodes.length, steps: run!.steps, inputTokens: run!.inputTokens };
}

/** What changed from `before` to `after`, as differences (only what changed). */
function changed(before: Stored, after: Stored): Partial<Stored> {
  const difference: Partial<Stored> = {};
  for (const key of Object.keys(before) as (keyof Stored)[]) if (after[key] !== before[key]) difference[key] = after[key] - before[key];
  return difference;
}

describe("a model call's usage", () => {
  it("is written with the first thing its step writes, in no transaction of its own", async () => {
    // What the database holds before each transaction the run begins, and once it is done: the
    // difference between one and the next is what a transaction stored.
    const seen: Stored[] = [];
    const { runId } = await runSongwriter(
      [
        withUsage(toolStep([{ id: "n1", name: "create_node", input: { text: "Rain taps the glass", kind: "lyric" } }]), 100, 50),
        withUsage(textStep("Done."), 10, 1),
      ],
      async (_index, id) => {
        seen.push(await storedFor(id));
      },
    );
    seen.push(await storedFor(runId));
    const writes = seen
      .slice(1)
      .map((after, index) => changed(seen[index]!, after))
      .filter((write) => Object.keys(write).length > 0);
    // The node's write carried the first call and its tokens; the second step's save carried the second call.
    expect(writes.find((write) => write.nodes)).toEqual({ nodes: 1, calls: 1, inputTokens: 100 });
    expect(writes.find((write) => write.calls && !write.nodes)).toMatchObject({ calls: 1, inputTokens: 10, steps: expect.any(Number) });
    // No write stored a call (and its tokens) and nothing else.
    for (const write of writes.filter((each) => each.calls)) {
      expect(
        Object.keys(write).filter((key) => key !== "calls" && key !== "inputTokens"),
        JSON.stringify(write),
      ).not.toEqual([]);
    }
    expect(writes.reduce((sum, write) => sum + (write.calls ?? 0), 0)).toBe(2);
    expect(await recordedCalls(runId)).toEqual([
      { call: 0, step: 0, inputTokens: 100 },
      { call: 1, step: 1, inputTokens: 10 },
    ]);
  });

  it("goes with the next write when the write that carried it failed", async () => {
    const { runId } = await runSongwriter(
      [
        // The edge's nodes do not exist: the tool's write fails and gives the call back.
        withUsage(toolStep([{ id: "e1", name: "create_edge", input: { sourceId: "nope", targetId: "none" } }]), 70, 7),
        withUsage(textStep("Done."), 10, 1),
      ],
      () => {},
    );
    expect(await recordedCalls(runId)).toEqual([
      { call: 0, step: 0, inputTokens: 70 },
      { call: 1, step: 1, inputTokens: 10 },
    ]);
    const [row] = await database.db.select().from(runs).where(eq(runs.id, runId));
    expect(row).toMatchObject({ inputTokens: 80, outputTokens: 8, steps: 2 });
  });
});

/** What a room write leaves behind: the room's last sequence number, its events, its nodes. */
async function roomState(roomId: string) {
  const [room] = await database.db.select({ lastSeq: rooms.lastSeq }).from(rooms).where(eq(rooms.id, roomId));
  const events = await readEventsAfter(database.db, roomId, 0);
  const nodes = await database.db.select({ id: canvasNodes.id }).from(canvasNodes).where(eq(canvasNodes.roomId, roomId));
  return { lastSeq: room!.lastSeq, seqs: events.map((event) => event.seq), nodes: nodes.map((node) => node.id) };
}

/** A run's totals, and what the instance's usage by hour holds for its agent. */
async function spentBy(runId: string) {
  const [run] = await database.db
    .select({ agentId: runs.agentId, inputTokens: runs.inputTokens, outputTokens: runs.outputTokens, costUsd: runs.costUsd })
    .from(runs)
    .where(eq(runs.id, runId));
  const hours = await database.db.select({ calls: usageHourly.calls }).from(usageHourly).where(eq(usageHourly.agentId, run!.agentId));
  return {
    inputTokens: run!.inputTokens,
    outputTokens: run!.outputTokens,
    costUsd: run!.costUsd,
    calls: hours.reduce((sum, hour) => sum + hour.calls, 0),
  };
}

describe("a room write whose model calls cannot be recorded", () => {
  it("leaves nothing of itself behind, and gives the calls to the next write", async () => {
    const { roomId } = await createTestRoom(database.db);
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    const run = await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Write about rain" }, alice);
    const pending = new PendingModelCalls(run.id, database);
    pending.add({ attempt: 1, call: 0, step: 0, inputTokens: 70, outputTokens: 7, costUsd: 0.25 });
    const allow = await refuseModelCalls(database.db, run.id);
    try {
      const before = await roomState(roomId);
      const spentBefore = await spentBy(run.id);
      const refused = await createNode(database.db, roomId, alice, { text: "Rain taps the glass", x: 0, y: 0 }, { carry: pending }).catch(
        (error: Error) => error,
      );
      // Drizzle reports the statement that failed, with the database's reason as its cause.
      expect(refused).toMatchObject({ cause: { message: "model call refused" } });
      // No event, no node, no sequence number taken, and nothing of the calls.
      expect(await roomState(roomId)).toEqual(before);
      expect(await recordedCalls(run.id)).toEqual([]);
      expect(await spentBy(run.id)).toEqual(spentBefore);
      expect(pending.size).toBe(1);

      const node = await createNode(database.db, roomId, alice, { text: "Streetlights hum", x: 0, y: 0 }, { carry: pending });
      expect(pending.size).toBe(0);
      expect(await roomState(roomId)).toEqual({
        lastSeq: before.lastSeq + 1,
        seqs: [...before.seqs, before.lastSeq + 1],
        nodes: [node.id],
      });
      expect(await recordedCalls(run.id)).toEqual([{ call: 0, step: 0, inputTokens: 70 }]);
      expect(await spentBy(run.id)).toEqual({
        inputTokens: spentBefore.inputTokens + 70,
        outputTokens: spentBefore.outputTokens + 7,
        costUsd: spentBefore.costUsd + 0.25,
        calls: spentBefore.calls + 1,
      });
    } finally {
      await allow();
      // Claims in this file take the oldest queued run: this one is not for them.
      await database.db.update(runs).set({ status: "cancelled" }).where(eq(runs.id, run.id));
    }
  });

  it("in a run, fails the tool's write and is recorded once, with the step", async () => {
    let allow: () => Promise<void> = async () => {};
    try {
      const { roomId, runId } = await runSongwriter(
        [
          withUsage(toolStep([{ id: "n1", name: "create_node", input: { text: "Rain taps the glass", kind: "lyric" } }]), 100, 50),
          withUsage(textStep("Done."), 10, 1),
        ],
        () => {},
        async (id) => {
          allow = await refuseModelCalls(database.db, id);
        },
      );
      const events = await readEventsAfter(database.db, roomId, 0);
      expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
      expect(events.filter((event) => event.type === "node.created")).toEqual([]);
      const [first] = events.flatMap((event) => (event.type === "run.step" ? [event.payload] : []));
      expect(first!.toolResults).toEqual([{ id: "n1", name: "create_node", error: expect.any(String) }]);
      expect(await storedFor(runId)).toEqual({ calls: 2, nodes: 0, steps: 2, inputTokens: 110 });
      expect(await recordedCalls(runId)).toEqual([
        { call: 0, step: 0, inputTokens: 100 },
        { call: 1, step: 1, inputTokens: 10 },
      ]);
    } finally {
      await allow();
    }
  });
});
