import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { MockLanguageModelV4, convertArrayToReadableStream } from "ai/test";
import { asc, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { type Run, broadcasts, canvasNodes, rooms, runModelCalls, runs } from "@/db/schema";
import { readEventsAfter } from "@/lib/events/read-events";
import { type StoredEvent, isStoredEvent } from "@/lib/protocol";
import { agentByPersona, startTestWorker } from "@/test/agents";
import { type CrashableDatabase, crashableDatabase } from "@/test/crashable-database";
import { alice, createTestRoom, eventually } from "@/test/fixtures";
import { mockResolver, setAgentModel, textStep, toolStep, withUsage } from "@/test/mock-models";
import { useTestBus } from "@/test/test-runtime";
import { startAgentRun } from "./start-agent-run";

// Workers here claim any room's runs, so this file keeps a database of its own. Its bus is an
// instance that stays up, through which a viewer watches the room.
const context = useTestBus();

const NODES = ["Rain taps the glass", "Streetlights hum", "The gutter sings"];
/** The Songwriter's run: a node a step, then its answer. */
const STEPS: LanguageModelV4StreamPart[][] = [
  ...NODES.map((text, step) => toolStep([{ id: `n${step}`, name: "create_node", input: { text, kind: "lyric" } }])),
  textStep("Three lines of rain."),
];
/**
 * The input tokens a call reports, so that each recorded call says which attempt made it (the
 * first worker's, or the one taking over) for which step.
 */
const tokensOf = (attempt: number, step: number) => 100 * attempt + step;
/** The model call of `attempt` for `step`, as the run's records hold it. */
const callOf = (attempt: number, step: number) => ({ attempt, step, inputTokens: tokensOf(attempt, step) });

/** Where the first worker's process dies. */
type CrashPoint =
  /** While the model answers the step: the call never returns. */
  | { step: number; when: "while the model answers" }
  /** Its model call has returned (with usage), before the step's first write begins. */
  | { step: number; when: "after the model answered" }
  /** Its tool's node is written, before the step is saved. */
  | { step: number; when: "after its node was written" };

/**
 * A model playing `STEPS` for both workers (step n is chosen by the assistant turns in its
 * prompt). While the first worker lives, it reports as attempt 1; asked for the step
 * of `crash` "while the model answers", it kills that worker and never answers. `answered`
 * holds the steps whose call the first worker saw to the end (its usage included).
 */
function crashingModel(crashing: CrashableDatabase, crash: CrashPoint) {
  const answered = new Set<number>();
  const model = new MockLanguageModelV4({
    doStream: async (call) => {
      const step = call.prompt.filter((message) => message.role === "assistant").length;
      const attempt = crashing.crashed ? 2 : 1;
      if (attempt === 1 && crash.when === "while the model answers" && step === crash.step) {
        await crashing.crash();
        return new Promise<never>(() => {});
      }
      const parts = withUsage(STEPS[step]!, tokensOf(attempt, step), 5);
      const stream = convertArrayToReadableStream(parts).pipeThrough(
        new TransformStream<LanguageModelV4StreamPart, LanguageModelV4StreamPart>({
          transform(part, controller) {
            controller.enqueue(part);
            if (part.type === "finish" && attempt === 1) answered.add(step);
          },
        }),
      );
      return { stream };
    },
  });
  return { model, answered };
}

async function runRow(runId: string): Promise<Run> {
  const [row] = await context.database.db.select().from(runs).where(eq(runs.id, runId));
  return row!;
}

/**
 * Starts the Songwriter's run on a worker whose process dies at `crash`, and once its lease
 * has lapsed lets a second worker take the run over and finish it. A viewer watches the room
 * throughout; returns what it saw while the first worker lived, and everything it saw.
 */
async function runThroughCrash(crash: CrashPoint) {
  const { roomId } = await createTestRoom(context.database.db);
  const songwriter = await agentByPersona(context.database, roomId, "songwriter");
  await setAgentModel(context.database, songwriter.id, "mock:crashing");
  const crashing = await crashableDatabase(context.database);
  const { model, answered } = crashingModel(crashing, crash);
  const resolveModel = mockResolver({ crashing: model });
  const seen: StoredEvent[] = [];
  const unsubscribe = context.bus.subscribe(roomId, (delivery) => {
    if (delivery.kind === "event" && isStoredEvent(delivery.event)) seen.push(delivery.event);
  });

  crashing.beforeTransaction = async () => {
    if (crash.when === "after the model answered" && answered.has(crash.step)) await crashing.crash();
    if (crash.when === "after its node was written") {
      const written = await context.database.db.select().from(canvasNodes).where(eq(canvasNodes.text, NODES[crash.step]!));
      if (written.some((node) => node.roomId === roomId)) await crashing.crash();
    }
  };
  // The worker that dies is never stopped: nothing of its shutdown runs. A short lease lapses soon after its heartbeats stop.
  await startTestWorker(crashing, { owner: "worker-that-dies", resolveModel, leaseMs: 400, pollMs: 60_000, onError: () => {} });
  const run = await startAgentRun(context.database.db, roomId, { agentId: songwriter.id, prompt: "Write about rain" }, alice);
  let beforeCrash: StoredEvent[] = [];
  try {
    await eventually(() => expect(crashing.crashed).toBe(true), 10_000);
    // Everything committed before the crash reaches the viewer.
    const [room] = await context.database.db.select({ lastSeq: rooms.lastSeq }).from(rooms).where(eq(rooms.id, roomId));
    await eventually(() => expect(seen.at(-1)?.seq).toBe(room!.lastSeq));
    beforeCrash = [...seen];
    const survivor = await startTestWorker(context.database, { resolveModel });
    try {
      await eventually(async () => expect((await runRow(run.id)).status).toBe("succeeded"), 10_000);
    } finally {
      await survivor.stop();
    }
  } finally {
    unsubscribe();
    await crashing.close();
  }
  return { roomId, run, beforeCrash, seen, answeredBeforeCrash: answered };
}

/** The model calls recorded for the run, in the order they were made. */
async function recordedCalls(runId: string) {
  return context.database.db
    .select({ attempt: runModelCalls.attempt, step: runModelCalls.step, inputTokens: runModelCalls.inputTokens })
    .from(runModelCalls)
    .where(eq(runModelCalls.runId, runId))
    .orderBy(asc(runModelCalls.attempt), asc(runModelCalls.call));
}

/**
 * What must hold after any crash: the room's sequence numbers run from 1 to its last with no
 * hole and no repeat; every event a viewer was sent is stored as it was sent; each node was
 * written once; and the run's totals are the sum of the model calls recorded for it.
 */
async function expectSurvived(roomId: string, runId: string, seen: StoredEvent[]) {
  const stored = await readEventsAfter(context.database.db, roomId, 0, 2000);
  const [room] = await context.database.db.select({ lastSeq: rooms.lastSeq }).from(rooms).where(eq(rooms.id, roomId));
  expect(stored.map((event) => event.seq)).toEqual(Array.from({ length: room!.lastSeq }, (_, index) => index + 1));

  expect(seen.length).toBeGreaterThan(0);
  const bySeq = new Map(stored.map((event) => [event.seq, event]));
  for (const event of seen) expect(bySeq.get(event.seq)).toEqual(event);

  const nodes = await context.database.db.select().from(canvasNodes).where(eq(canvasNodes.roomId, roomId));
  expect(nodes.map((node) => node.text).sort()).toEqual([...NODES].sort());
  const created = stored.filter((event) => event.type === "node.created");
  expect(created.map((event) => event.payload.node.id).sort()).toEqual(nodes.map((node) => node.id).sort());

  const row = await runRow(runId);
  expect(row).toMatchObject({ status: "succeeded", attempts: 2, steps: STEPS.length });
  const calls = await recordedCalls(runId);
  expect(row.inputTokens).toBe(calls.reduce((total, call) => total + call.inputTokens, 0));
  expect(row.outputTokens).toBe(calls.length * 5);
  const finished = stored.filter((event) => event.type === "run.finished");
  expect(finished.map((event) => event.payload)).toEqual([
    expect.objectContaining({ runId, inputTokens: row.inputTokens, outputTokens: row.outputTokens, attempts: 2, steps: STEPS.length }),
  ]);
  return calls;
}

/** The texts of the nodes whose creation the viewer was sent, in order. */
const nodesSeen = (seen: StoredEvent[]) => seen.flatMap((event) => (event.type === "node.created" ? [event.payload.node.text] : []));

describe("a run whose worker's process dies", () => {
  it("while the model answers a step: what was seen stays, and each call of a saved step counts once", async () => {
    const { roomId, run, beforeCrash, seen } = await runThroughCrash({ step: 2, when: "while the model answers" });
    expect(nodesSeen(beforeCrash)).toEqual(NODES.slice(0, 2));
    expect(beforeCrash.filter((event) => event.type === "run.step")).toHaveLength(2);

    const calls = await expectSurvived(roomId, run.id, seen);
    // The call cut off in mid-answer returned no usage; the survivor took its step again.
    expect(calls).toEqual([callOf(1, 0), callOf(1, 1), callOf(2, 2), callOf(2, 3)]);
  });

  it("after a step's node was written but before the step was saved: the node stays once, and both calls of that step count", async () => {
    const { roomId, run, beforeCrash, seen } = await runThroughCrash({ step: 1, when: "after its node was written" });
    expect(nodesSeen(beforeCrash)).toEqual(NODES.slice(0, 2));
    expect(beforeCrash.filter((event) => event.type === "run.step")).toHaveLength(1);

    const calls = await expectSurvived(roomId, run.id, seen);
    // The node's write carried the first worker's call; the survivor's call for the same step
    // found that node (its write was a duplicate) and went with it all the same.
    expect(calls).toEqual([callOf(1, 0), callOf(1, 1), callOf(2, 1), callOf(2, 2), callOf(2, 3)]);
  });

  it("after a step's model call returned but before any write carried it: that call is not counted, and the step is made again", async () => {
    const { roomId, run, beforeCrash, seen, answeredBeforeCrash } = await runThroughCrash({ step: 1, when: "after the model answered" });
    expect([...answeredBeforeCrash]).toEqual([0, 1]);
    expect(nodesSeen(beforeCrash)).toEqual(NODES.slice(0, 1));

    const calls = await expectSurvived(roomId, run.id, seen);
    // Nothing of step 1 was written before the process died, so nothing of it was seen: its
    // call's tokens were spent but are not in the totals. The survivor called the model for it again.
    expect(calls).toEqual([callOf(1, 0), callOf(2, 1), callOf(2, 2), callOf(2, 3)]);
  });
});

/**
 * A step that asks the people in the room a question while another of its tools fails: the
 * failing tool's write takes the step's model call to carry and, failing, gives it back; the
 * question, filed meanwhile, went without it. The call then waits for the step's save, which
 * comes once the question has been answered or has timed out (`broadcast_timeout`, five minutes
 * by default). The two writes race, and on PostgreSQL the question often wins on its own; here
 * the failing write is held until the question is filed, so that it always does.
 */
describe("a step that asks the people while another of its tools fails", () => {
  const ASKING: LanguageModelV4StreamPart[][] = [
    toolStep([
      { id: "e1", name: "create_edge", input: { sourceId: "no-such-node", targetId: "nor-this-one" } },
      { id: "a1", name: "ask_others", input: { question: "Rain or streetlights?" } },
    ]),
    textStep("Keeping the rain."),
  ];

  /**
   * Starts the Songwriter on a worker over `crashing`, in a room whose questions go to people
   * and wait `timeout` seconds for them. Returns the run and its worker once its question is open.
   */
  async function askWhileAToolFails(crashing: CrashableDatabase, timeout: number) {
    const { roomId } = await createTestRoom(context.database.db, { broadcast: "human", broadcast_timeout: timeout });
    const songwriter = await agentByPersona(context.database, roomId, "songwriter");
    await setAgentModel(context.database, songwriter.id, "mock:asking");
    const answered = new Set<number>();
    const model = new MockLanguageModelV4({
      doStream: async (call) => {
        const step = call.prompt.filter((message) => message.role === "assistant").length;
        const attempt = crashing.crashed ? 2 : 1;
        const parts = withUsage(ASKING[step]!, tokensOf(attempt, step), 5);
        if (attempt === 1) answered.add(step);
        return { stream: convertArrayToReadableStream(parts) };
      },
    });
    const questionOf = async (runId: string) => {
      const [question] = await context.database.db.select().from(broadcasts).where(eq(broadcasts.runId, runId));
      return question;
    };
    let runId = "";
    let held = false;
    // The first write the step begins is the failing tool's (its body runs first); it waits until the question is filed.
    crashing.beforeTransaction = async () => {
      if (held || !answered.has(0)) return;
      held = true;
      await eventually(async () => expect(await questionOf(runId)).toBeDefined());
    };
    const resolveModel = mockResolver({ asking: model });
    const worker = await startTestWorker(crashing, {
      owner: "worker-that-asks",
      resolveModel,
      leaseMs: 400,
      pollMs: 60_000,
      onError: () => {},
    });
    const run = await startAgentRun(context.database.db, roomId, { agentId: songwriter.id, prompt: "Write about rain" }, alice);
    runId = run.id;
    await eventually(async () => expect((await questionOf(run.id))?.status).toBe("open"));
    return { roomId, run, worker, resolveModel };
  }

  it("has its model call counted as soon as its question is seen, not once the question has closed", async () => {
    const crashing = await crashableDatabase(context.database);
    try {
      const { roomId, run, worker } = await askWhileAToolFails(crashing, 2);
      try {
        await eventually(async () => expect((await runRow(run.id)).status).toBe("succeeded"), 10_000);
      } finally {
        // This one lives on: stopped, it claims no later test's run.
        await worker.stop();
      }

      const stored = await readEventsAfter(context.database.db, roomId, 0);
      const seenAt = (type: string) => Date.parse(stored.find((event) => event.type === type)!.timestamp);
      const [first] = await context.database.db
        .select()
        .from(runModelCalls)
        .where(eq(runModelCalls.runId, run.id))
        .orderBy(asc(runModelCalls.call));
      expect(first).toMatchObject(callOf(1, 0));
      const pendingMs = first!.createdAt.getTime() - seenAt("broadcast.asked");
      // A viewer saw the question its call asked for the whole of the question's wait before the call was in the run's totals.
      expect(
        first!.createdAt.getTime(),
        `the call that asked was recorded ${pendingMs} ms after its question was seen, once the question had closed`,
      ).toBeLessThan(seenAt("broadcast.closed"));
    } finally {
      await crashing.close();
    }
  });

  it("has its model call counted when its worker dies while the question waits", async () => {
    const crashing = await crashableDatabase(context.database);
    try {
      const { run, resolveModel } = await askWhileAToolFails(crashing, 3);
      // The question is on the page; the worker dies while it waits for the people: once the
      // call that asked is in the run's totals, or a second into the wait if it never gets there.
      await eventually(async () => expect(await recordedCalls(run.id)).not.toEqual([]), 1000).catch(() => {});
      await crashing.crash();
      const survivor = await startTestWorker(context.database, { resolveModel });
      try {
        await eventually(async () => expect((await runRow(run.id)).status).toBe("succeeded"), 10_000);
      } finally {
        await survivor.stop();
      }
      // The survivor takes the step again: the same question, a second call. Both calls were made
      // and the first one's question was seen, so both count.
      expect(await recordedCalls(run.id)).toEqual([callOf(1, 0), callOf(2, 0), callOf(2, 1)]);
    } finally {
      await crashing.close();
    }
  });
});
