import { APICallError } from "@ai-sdk/provider";
import { MockLanguageModelV4 } from "ai/test";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { boardEntries, canvasNodes, runs } from "@/db/schema";
import { readEventsAfter } from "@/lib/events/read-events";
import { writeRoomEvents } from "@/lib/events/write-room-events";
import { agentByPersona, startTestWorker } from "@/test/agents";
import { alice, createTestRoom, eventually } from "@/test/fixtures";
import { gate, mockResolver, scriptedSteps, setAgentModel, textStep, toolStep } from "@/test/mock-models";
import { type TestDatabase, createTestDatabase } from "@/test/test-database";
import { cancelRun } from "./cancel-run";
import { claimNextRun } from "./claim-run";
import { enqueueRun } from "./enqueue-run";
import { startAgentRun } from "./start-agent-run";

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database.destroy();
});

async function runsOf(roomId: string) {
  return database.db.select().from(runs).where(eq(runs.roomId, roomId));
}

async function stepsOf(roomId: string, runId: string) {
  const events = await readEventsAfter(database.db, roomId, 0, 2000);
  return events
    .filter((event) => event.type === "run.step" && (event.payload as { runId: string }).runId === runId)
    .map(
      (event) =>
        event.payload as { step: number; toolResults: { name: string; output?: { ok?: boolean; error?: string }; error?: string }[] },
    );
}

async function settled(roomId: string, count: number, timeout = 20_000) {
  return eventually(async () => {
    const all = await runsOf(roomId);
    expect(all).toHaveLength(count);
    expect(all.every((run) => !["queued", "running"].includes(run.status))).toBe(true);
    return all;
  }, timeout);
}

/** Queues a Songwriter run as the link at `depth` of a chain the Scene Painter started. */
async function queueSongwriterAt(roomId: string, depth: number) {
  const songwriter = await agentByPersona(database, roomId, "songwriter");
  const painter = await agentByPersona(database, roomId, "scene-painter");
  const { result } = await writeRoomEvents(database.db, roomId, (tx, emit, at) =>
    enqueueRun(tx, emit, {
      roomId,
      agentId: songwriter.id,
      trigger: "request",
      requestedBy: { id: painter.id, name: painter.name },
      prompt: "Write a verse.",
      chainDepth: depth,
      at,
    }),
  );
  return result!;
}

describe("request_agent limits", () => {
  it("allows the third link of a chain and refuses the fourth", async () => {
    const { roomId } = await createTestRoom(database.db);
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    const asking = scriptedSteps([
      toolStep([{ id: "r1", name: "request_agent", input: { targetPersona: "storyteller", prompt: "Tell the story of this." } }]),
      textStep("Asked for a story."),
    ]);
    await setAgentModel(database, songwriter.id, "mock:asking");
    const worker = await startTestWorker(database, { resolveModel: mockResolver({ asking }) });
    try {
      const atThree = await queueSongwriterAt(roomId, 3);
      await settled(roomId, 1);
      const refused = (await stepsOf(roomId, atThree!.id))[0]!.toolResults[0]!;
      expect(refused.output?.ok).toBe(false);
      expect(refused.output?.error).toMatch(/link 4 of a chain limited to 3/);
      expect(await runsOf(roomId)).toHaveLength(1);

      const atTwo = await queueSongwriterAt(roomId, 2);
      const all = await settled(roomId, 3);
      const child = all.find((run) => run.parentRunId === atTwo!.id)!;
      expect(child.chainDepth).toBe(3);
      expect(child.trigger).toBe("request");
      expect((await stepsOf(roomId, atTwo!.id))[0]!.toolResults[0]!.output?.ok).toBe(true);
    } finally {
      await worker.stop();
    }
  });

  it("refuses a second request_agent in the same run", async () => {
    const { roomId } = await createTestRoom(database.db);
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    const twice = scriptedSteps([
      toolStep([{ id: "r1", name: "request_agent", input: { targetPersona: "scene-painter", prompt: "Paint it." } }]),
      toolStep([{ id: "r2", name: "request_agent", input: { targetPersona: "storyteller", prompt: "Tell it." } }]),
      textStep("Done."),
    ]);
    await setAgentModel(database, songwriter.id, "mock:twice");
    const worker = await startTestWorker(database, { resolveModel: mockResolver({ twice }) });
    try {
      const run = await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Go" }, alice);
      const all = await settled(roomId, 2);
      const steps = await stepsOf(roomId, run.id);
      expect(steps[0]!.toolResults[0]!.output?.ok).toBe(true);
      expect(steps[1]!.toolResults[0]!.output).toMatchObject({ ok: false });
      expect(steps[1]!.toolResults[0]!.output?.error).toMatch(/Only 1 request is allowed per run/);
      const children = all.filter((candidate) => candidate.parentRunId === run.id);
      expect(children).toHaveLength(1);
      expect(all.find((candidate) => candidate.id === run.id)!.status).toBe("succeeded");
    } finally {
      await worker.stop();
    }
  });
});

describe("request_agent's prompt", () => {
  it("is refused beyond what a request can hold, in terms of the tool's own arguments", async () => {
    const { roomId } = await createTestRoom(database.db);
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    const verbose = scriptedSteps([
      toolStep([{ id: "r1", name: "request_agent", input: { targetPersona: "scene-painter", prompt: `Paint ${"rain ".repeat(300)}` } }]),
      textStep("Too long."),
    ]);
    await setAgentModel(database, songwriter.id, "mock:verbose");
    const worker = await startTestWorker(database, { resolveModel: mockResolver({ verbose }) });
    try {
      await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Go" }, alice);
      await settled(roomId, 1);
      const toolMessage = verbose.doStreamCalls[1]!.prompt.find((message) => message.role === "tool")!;
      const seen = (toolMessage.content[0] as { output: { type: string; value: unknown } }).output;
      expect(seen.type).toBe("error-text");
      const issue = String(seen.value).slice(String(seen.value).indexOf("Error message:"));
      expect(issue).toMatch(/"path": \[\s*"prompt"\s*\]/);
      expect(issue).toMatch(/<=600 characters/);
      expect(issue).not.toMatch(/\bask\b/);
      expect(await database.db.select().from(boardEntries).where(eq(boardEntries.roomId, roomId))).toHaveLength(0);
    } finally {
      await worker.stop();
    }
  });
});

describe("requests shared on the board", () => {
  const shareRequest = (id: string) =>
    toolStep([
      {
        id,
        name: "share_creative_context",
        input: { entryType: "request", content: { targetPersona: "storyteller", ask: "Tell the story of this.", refNodeIds: [] } },
      },
    ]);

  it("count against the run's one request, like request_agent", async () => {
    const { roomId } = await createTestRoom(database.db);
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    const sharing = scriptedSteps([
      shareRequest("s1"),
      toolStep([{ id: "r1", name: "request_agent", input: { targetPersona: "scene-painter", prompt: "Paint it." } }]),
      shareRequest("s2"),
      textStep("Done."),
    ]);
    await setAgentModel(database, songwriter.id, "mock:sharing");
    const worker = await startTestWorker(database, { resolveModel: mockResolver({ sharing }) });
    try {
      const run = await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Go" }, alice);
      await settled(roomId, 1);
      const steps = await stepsOf(roomId, run.id);
      expect(steps[0]!.toolResults[0]!.output?.ok).toBe(true);
      expect(steps[1]!.toolResults[0]!.output?.error).toMatch(/Only 1 request is allowed per run/);
      expect(steps[2]!.toolResults[0]!.output?.error).toMatch(/Only 1 request is allowed per run/);
      const requests = await database.db
        .select()
        .from(boardEntries)
        .where(and(eq(boardEntries.roomId, roomId), eq(boardEntries.kind, "request")));
      expect(requests).toHaveLength(1);
    } finally {
      await worker.stop();
    }
  });

  it("are refused beyond the chain's depth limit", async () => {
    const { roomId } = await createTestRoom(database.db);
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    const sharing = scriptedSteps([shareRequest("s1"), textStep("Done.")]);
    await setAgentModel(database, songwriter.id, "mock:sharing");
    const worker = await startTestWorker(database, { resolveModel: mockResolver({ sharing }) });
    try {
      const atThree = await queueSongwriterAt(roomId, 3);
      await settled(roomId, 1);
      const refused = (await stepsOf(roomId, atThree!.id))[0]!.toolResults[0]!;
      expect(refused.output?.error).toMatch(/link 4 of a chain limited to 3/);
      expect(await database.db.select().from(boardEntries).where(eq(boardEntries.roomId, roomId))).toHaveLength(0);
    } finally {
      await worker.stop();
    }
  });
});

describe("the run queue", () => {
  it("holds a 4th concurrent run in the queue until one of three finishes, across two workers", async () => {
    const { roomId, agents } = await createTestRoom(database.db);
    const hold = gate();
    const gated = scriptedSteps([textStep("Finished after the gate opened.")], { gate: hold.promise });
    for (const agent of agents) await setAgentModel(database, agent.id, "mock:gated");
    const first = await startTestWorker(database, { resolveModel: mockResolver({ gated }) });
    const second = await startTestWorker(database, { resolveModel: mockResolver({ gated }) });
    try {
      for (const agent of agents.slice(0, 4)) {
        await startAgentRun(database.db, roomId, { agentId: agent.id, prompt: "Wait for it" }, alice);
      }
      await eventually(async () => {
        const all = await runsOf(roomId);
        expect(all.filter((run) => run.status === "running")).toHaveLength(3);
        expect(all.filter((run) => run.status === "queued")).toHaveLength(1);
      });
      await new Promise((resolve) => setTimeout(resolve, 400));
      const still = await runsOf(roomId);
      expect(still.filter((run) => run.status === "running")).toHaveLength(3);
      const waiting = still.find((run) => run.status === "queued")!;
      expect(waiting.attempts).toBe(0);

      hold.release();
      const all = await settled(roomId, 4);
      expect(all.every((run) => run.status === "succeeded")).toBe(true);
      const events = await readEventsAfter(database.db, roomId, 0, 2000);
      const startedFourth = events.find(
        (event) => event.type === "run.started" && (event.payload as { runId: string }).runId === waiting.id,
      )!;
      const firstFinish = events.find((event) => event.type === "run.finished")!;
      expect(startedFourth.seq).toBeGreaterThan(firstFinish.seq);
    } finally {
      await first.stop();
      await second.stop();
    }
  });

  it("re-claims a run whose worker died once its lease expires", async () => {
    const { roomId } = await createTestRoom(database.db);
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    const run = await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Write about rain" }, alice);
    const claimed = await claimNextRun(database.db, { owner: "worker-that-dies", leaseMs: 1500 });
    expect(claimed?.id).toBe(run.id);

    const survivor = await startTestWorker(database);
    try {
      await new Promise((resolve) => setTimeout(resolve, 300));
      const [meanwhile] = await database.db.select().from(runs).where(eq(runs.id, run.id));
      expect(meanwhile!.leaseOwner).toBe("worker-that-dies");

      await eventually(async () => {
        const [row] = await database.db.select().from(runs).where(eq(runs.id, run.id));
        expect(row!.status).toBe("succeeded");
      }, 20_000);
      const [done] = await database.db.select().from(runs).where(eq(runs.id, run.id));
      expect(done!.attempts).toBe(2);
      const events = await readEventsAfter(database.db, roomId, 0, 2000);
      const attempts = events
        .filter((event) => event.type === "run.started" && (event.payload as { runId: string }).runId === run.id)
        .map((event) => (event.payload as { attempt: number }).attempt);
      expect(attempts).toEqual([1, 2]);
    } finally {
      await survivor.stop();
    }
  });

  it("cancels a queued run at once and stops a running one", async () => {
    const { roomId } = await createTestRoom(database.db);
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    const painter = await agentByPersona(database, roomId, "scene-painter");
    const queued = await startAgentRun(database.db, roomId, { agentId: songwriter.id }, alice);
    expect(await cancelRun(database.db, roomId, queued.id, alice)).toBe("cancelled");
    const [cancelled] = await database.db.select().from(runs).where(eq(runs.id, queued.id));
    expect(cancelled!.status).toBe("cancelled");
    await expect(cancelRun(database.db, roomId, queued.id, alice)).rejects.toMatchObject({ status: 400 });

    const hold = gate();
    await setAgentModel(database, painter.id, "mock:held");
    const worker = await startTestWorker(database, {
      resolveModel: mockResolver({ held: scriptedSteps([textStep("never")], { gate: hold.promise }) }),
      heartbeatMs: 50,
    });
    try {
      const running = await startAgentRun(database.db, roomId, { agentId: painter.id }, alice);
      await eventually(async () => {
        const [row] = await database.db.select().from(runs).where(eq(runs.id, running.id));
        expect(row!.status).toBe("running");
      });
      expect(await cancelRun(database.db, roomId, running.id, alice)).toBe("stopping");
      await eventually(async () => {
        const [row] = await database.db.select().from(runs).where(eq(runs.id, running.id));
        expect(row!.status).toBe("cancelled");
      });
    } finally {
      hold.release();
      await worker.stop();
    }
  });
});

describe("failure isolation", () => {
  it("returns invalid tool arguments to the model as a tool error, and the run goes on", async () => {
    const { roomId } = await createTestRoom(database.db);
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    const correcting = scriptedSteps([
      toolStep([{ id: "bad", name: "create_node", input: { text: 42, kind: "lyric" } }], "Writing a verse."),
      toolStep([{ id: "good", name: "create_node", input: { text: "Rain taps the glass", kind: "lyric" } }]),
      textStep("Fixed it."),
    ]);
    await setAgentModel(database, songwriter.id, "mock:correcting");
    const worker = await startTestWorker(database, { resolveModel: mockResolver({ correcting }) });
    try {
      const run = await startAgentRun(database.db, roomId, { agentId: songwriter.id }, alice);
      const [done] = await settled(roomId, 1);
      expect(done!.status).toBe("succeeded");
      const steps = await stepsOf(roomId, run.id);
      expect(steps).toHaveLength(3);
      expect(steps[0]!.toolResults[0]!.error).toMatch(/Invalid input for tool create_node/);
      expect(steps[1]!.toolResults[0]!.output?.ok).toBe(true);
      const secondPrompt = JSON.stringify(correcting.doStreamCalls[1]!.prompt);
      expect(secondPrompt).toMatch(/error-text/);
      expect(secondPrompt).toMatch(/Invalid input for tool create_node/);
      const nodes = await database.db.select().from(canvasNodes).where(eq(canvasNodes.roomId, roomId));
      expect(nodes.map((node) => node.text)).toEqual(["Rain taps the glass"]);
    } finally {
      await worker.stop();
    }
  });

  it("keeps other runs going when one hits a provider error and another a tool that throws", async () => {
    const { roomId } = await createTestRoom(database.db);
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    const painter = await agentByPersona(database, roomId, "scene-painter");
    const storyteller = await agentByPersona(database, roomId, "storyteller");
    const broken = new MockLanguageModelV4({
      doStream: async () => {
        throw new APICallError({
          message: "Bad request: model overloaded",
          url: "http://provider.test/v1/chat/completions",
          requestBodyValues: {},
          statusCode: 400,
          isRetryable: false,
        });
      },
    });
    const throwing = scriptedSteps([
      toolStep([{ id: "nul", name: "create_node", input: { text: "a\u0000b", kind: "scene" } }]),
      textStep("That did not work; moving on."),
    ]);
    await setAgentModel(database, songwriter.id, "mock:broken");
    await setAgentModel(database, painter.id, "mock:throwing");
    const worker = await startTestWorker(database, { resolveModel: mockResolver({ broken, throwing }), onError: () => {} });
    try {
      const failing = await startAgentRun(database.db, roomId, { agentId: songwriter.id }, alice);
      const throwingRun = await startAgentRun(database.db, roomId, { agentId: painter.id }, alice);
      const healthy = await startAgentRun(database.db, roomId, { agentId: storyteller.id, prompt: "A story about the sea" }, alice);
      // The three runs, and whatever they asked for (the Storyteller may ask the Songwriter for help).
      const all = await eventually(async () => {
        const rows = await runsOf(roomId);
        expect(rows.length).toBeGreaterThanOrEqual(3);
        expect(rows.every((run) => !["queued", "running"].includes(run.status))).toBe(true);
        return rows;
      }, 20_000);
      const byId = new Map(all.map((run) => [run.id, run]));
      expect(byId.get(failing.id)!.status).toBe("failed");
      expect(byId.get(failing.id)!.error).toMatchObject({ error_type: "provider_error", retry_possible: false });
      expect(byId.get(failing.id)!.error).toMatchObject({ error_message: expect.stringMatching(/model overloaded/) });
      expect(byId.get(throwingRun.id)!.error).toBeNull();
      expect(byId.get(throwingRun.id)!.status).toBe("succeeded");
      expect((await stepsOf(roomId, throwingRun.id))[0]!.toolResults[0]!.error).toMatch(/cannot be stored \(such as U\+0000\)/);
      expect(byId.get(healthy.id)!.status).toBe("succeeded");
      const stories = await database.db
        .select()
        .from(canvasNodes)
        .where(and(eq(canvasNodes.roomId, roomId), eq(canvasNodes.kind, "story")));
      expect(stories.length).toBe(3);

      const after = await startAgentRun(database.db, roomId, { agentId: storyteller.id }, alice);
      await eventually(async () => {
        const [row] = await database.db.select().from(runs).where(eq(runs.id, after.id));
        expect(row!.status).toBe("succeeded");
      }, 20_000);
    } finally {
      await worker.stop();
    }
  });

  it("fails a run whose provider has no key with a reason people can act on", async () => {
    const saved = process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_API_KEY;
    const { roomId } = await createTestRoom(database.db);
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    await setAgentModel(database, songwriter.id, "openai:gpt-5");
    const worker = await startTestWorker(database);
    try {
      await startAgentRun(database.db, roomId, { agentId: songwriter.id }, alice);
      const [run] = await settled(roomId, 1);
      expect(run!.status).toBe("failed");
      expect(run!.error).toMatchObject({ error_type: "model_unavailable", retry_possible: false });
      expect(run!.error).toMatchObject({ error_message: expect.stringMatching(/OPENAI_API_KEY is not set/) });
    } finally {
      if (saved !== undefined) process.env.OPENAI_API_KEY = saved;
      await worker.stop();
    }
  });
});
