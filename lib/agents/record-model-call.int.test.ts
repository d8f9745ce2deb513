import { asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canvasNodes, runModelCalls, runs } from "@/db/schema";
import { RoomBus } from "@/lib/realtime/bus";
import { agentByPersona } from "@/test/agents";
import { alice, createTestRoom } from "@/test/fixtures";
import { interceptTransactions } from "@/test/intercept-transactions";
import { mockResolver, scriptedSteps, setAgentModel, textStep, toolStep, withUsage } from "@/test/mock-models";
import { type TestDatabase, createTestDatabase } from "@/test/test-database";
import { claimNextRun } from "./claim-run";
import { executeRun } from "./execute-run";
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
) {
  const { roomId } = await createTestRoom(database.db);
  const songwriter = await agentByPersona(database, roomId, "songwriter");
  await setAgentModel(database, songwriter.id, "mock:model");
  const run = await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Write about rain" }, alice);
  const claimed = await claimNextRun(database.db, { owner: "recording-worker", leaseMs: 10_000 });
  expect(claimed?.id).toBe(run.id);
  const watched = interceptTransactions(database, (index) => beforeTransaction(index, run.id));
  const outcome = await executeRun(
    { database: watched, bus, resolveModel: mockResolver({ model: scriptedSteps(steps) }) },
    claimed!,
    { owner: "recording-worker", signal: new AbortController().signal, stopReason: () => null },
  );
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
  const [run] = await database.db.select({ roomId: runs.roomId, steps: runs.steps, inputTokens: runs.inputTokens }).from(runs).where(eq(runs.id, runId));
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
    const writes = seen.slice(1).map((after, index) => changed(seen[index]!, after)).filter((write) => Object.keys(write).length > 0);
    // The node's write carried the first call and its tokens; the second step's save carried the second call.
    expect(writes.find((write) => write.nodes)).toEqual({ nodes: 1, calls: 1, inputTokens: 100 });
    expect(writes.find((write) => write.calls && !write.nodes)).toMatchObject({ calls: 1, inputTokens: 10, steps: expect.any(Number) });
    // No write stored a call (and its tokens) and nothing else.
    for (const write of writes.filter((each) => each.calls)) {
      expect(Object.keys(write).filter((key) => key !== "calls" && key !== "inputTokens"), JSON.stringify(write)).not.toEqual([]);
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
