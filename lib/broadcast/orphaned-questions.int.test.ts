import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { broadcasts, leases, runs } from "@/db/schema";
import { cancelRun } from "@/lib/agents/cancel-run";
import { claimNextRun, releaseRun } from "@/lib/agents/claim-run";
import { finishRun } from "@/lib/agents/finish-run";
import { Scheduler } from "@/lib/agents/scheduler";
import { startAgentRun } from "@/lib/agents/start-agent-run";
import { readEventsAfter } from "@/lib/events/read-events";
import type { RoomSettingsPatch } from "@/lib/rooms/room-settings";
import { agentByPersona, startTestWorker } from "@/test/agents";
import {
  broadcastStatus,
  latencyResolver,
  leaveQuestion,
  setLatency,
  testSeat,
  useBroadcastDeps,
  waitForOpenQuestion,
} from "@/test/broadcasts";
import { alice, createTestRoom, eventually } from "@/test/fixtures";
import { interceptTransactions } from "@/test/intercept-transactions";
import { scriptedSteps, setAgentModel, textStep, toolStep } from "@/test/mock-models";
import { answerHumanQuestion } from "./answer-question";
import { askOthers } from "./ask-others";

// Claims here take any room's runs, so these tests keep a database of their own.
const context = useBroadcastDeps();
const statusOf = (broadcastId: string) => broadcastStatus(context.database, broadcastId);

/** The room's events about `broadcastId` and its run, in order, as `type:status`. */
async function storyOf(roomId: string, broadcastId: string, runId?: string) {
  const events = await readEventsAfter(context.database.db, roomId, 0, 2000);
  return events
    .filter((event) => {
      const payload = event.payload as { broadcastId?: string; runId?: string };
      return payload.broadcastId === broadcastId || (runId !== undefined && payload.runId === runId);
    })
    .map((event) => `${event.type}:${(event.payload as { status?: string }).status ?? event.status}`);
}

const inOneMinute = () => new Date(Date.now() + 60_000);

/** A Songwriter run, claimed by `owner`, waiting on the answers to a question it asked the other agents. */
async function runWaitingOnQuestion(owner: string, leaseMs: number, settings: RoomSettingsPatch = {}) {
  const { roomId } = await createTestRoom(context.database.db, { broadcast: "agents", broadcast_timeout: 60, ...settings });
  const songwriter = await agentByPersona(context.database, roomId, "songwriter");
  const run = await startAgentRun(context.database.db, roomId, { agentId: songwriter.id }, alice);
  expect((await claimNextRun(context.database.db, { owner, leaseMs }))?.id).toBe(run.id);
  const pending = await leaveQuestion(context.database, roomId, "songwriter", {
    mode: "agents",
    status: "pending",
    runId: run.id,
    deadlineAt: inOneMinute(),
  });
  return { roomId, songwriter, run, pending };
}
const aSecondAgo = () => new Date(Date.now() - 1000);

describe("a question whose asking run ends without collecting it", () => {
  it("is cancelled, with an event, when the run is cancelled while its shadows answer", async () => {
    const { roomId, agents } = await createTestRoom(context.database.db, { broadcast: "agents", broadcast_timeout: 60 });
    const songwriter = agents.find((agent) => agent.persona === "songwriter")!;
    for (const agent of agents) if (agent.id !== songwriter.id) await setLatency(context.database, agent.id, 8000);
    const asks = scriptedSteps([
      toolStep([{ id: "ask", name: "ask_others", input: { question: "Rain or streetlights?" } }]),
      textStep("Done."),
    ]);
    await setAgentModel(context.database, songwriter.id, "mock:asks");
    const worker = await startTestWorker(context.database, {
      leaseMs: 600,
      resolveModel: (spec) =>
        spec === "mock:asks" ? { model: asks, provider: "script", modelId: spec, spec, scripted: true } : latencyResolver(spec),
    });
    try {
      const run = await startAgentRun(context.database.db, roomId, { agentId: songwriter.id }, alice);
      const asked = await eventually(async () => {
        const [row] = await context.database.db.select().from(broadcasts).where(eq(broadcasts.runId, run.id));
        expect(row?.status).toBe("pending");
        return row!;
      });
      expect(await cancelRun(context.database.db, roomId, run.id, alice)).toBe("stopping");
      await eventually(async () => {
        const [row] = await context.database.db.select().from(runs).where(eq(runs.id, run.id));
        expect(row!.status).toBe("cancelled");
      });
      await eventually(async () => expect(await statusOf(asked.id)).toBe("cancelled"));
      const story = await storyOf(roomId, asked.id, run.id);
      expect(story.filter((entry) => entry.startsWith("broadcast.closed"))).toEqual(["broadcast.closed:cancelled"]);
      expect(story.indexOf("broadcast.closed:cancelled")).toBeLessThan(story.indexOf("run.finished:cancelled"));
      const events = await readEventsAfter(context.database.db, roomId, 0, 2000);
      const closed = events.find((event) => event.type === "broadcast.closed")!;
      expect(closed.error_details).toMatchObject({ error_type: "asker_stopped" });
    } finally {
      await worker.stop();
    }
  });

  it("is cancelled when the run fails, and a person's question leaves the room free for the next", async () => {
    const { roomId } = await createTestRoom(context.database.db, { broadcast: "human", broadcast_timeout: 60 });
    const songwriter = await agentByPersona(context.database, roomId, "songwriter");
    const run = await startAgentRun(context.database.db, roomId, { agentId: songwriter.id }, alice);
    expect((await claimNextRun(context.database.db, { owner: "crashing", leaseMs: 5000 }))?.id).toBe(run.id);
    const [claimed] = await context.database.db.select().from(runs).where(eq(runs.id, run.id));
    const open = await leaveQuestion(context.database, roomId, "songwriter", {
      mode: "human",
      status: "open",
      runId: run.id,
      deadlineAt: inOneMinute(),
    });
    const failure = { error_type: "run_error", error_message: "crashed", retry_possible: false };
    const usage = { steps: 1, durationMs: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 };
    expect(await finishRun(context.database.db, claimed!, songwriter, { status: "failed", error: failure, ...usage }, "crashing")).toBe(
      true,
    );

    expect(await statusOf(open.id)).toBe("cancelled");
    expect(await storyOf(roomId, open.id, run.id)).toEqual(["run.started:pending", "broadcast.closed:cancelled", "run.finished:failed"]);
    const seat = await testSeat(context.database, roomId);
    const next = askOthers(context.deps, {
      roomId,
      asker: await agentByPersona(context.database, roomId, "scene-painter"),
      runId: null,
      correlationId: "c",
      question: "Which light?",
    });
    const reopened = await waitForOpenQuestion(context.database, roomId, 3000);
    await answerHumanQuestion(context.database.db, roomId, reopened.id, seat, "one warm lamp");
    expect((await next).status).toBe("complete");
  });

  it("is cancelled when a cancelled run's worker died and the next claim ends the run", async () => {
    const { roomId, run, pending } = await runWaitingOnQuestion("dies", 200);
    expect(await cancelRun(context.database.db, roomId, run.id, alice)).toBe("stopping");
    await new Promise((resolve) => setTimeout(resolve, 400));

    expect(await claimNextRun(context.database.db, { owner: "next", leaseMs: 5000 })).toBeNull();
    expect(await statusOf(pending.id)).toBe("cancelled");
    expect(await storyOf(roomId, pending.id, run.id)).toEqual([
      "run.started:pending",
      "broadcast.closed:cancelled",
      "run.finished:cancelled",
    ]);
  });

  it("is reported to its asker as the room saw it when it ended elsewhere first", async () => {
    const { roomId } = await createTestRoom(context.database.db, { broadcast: "agents", broadcast_timeout: 60 });
    const songwriter = await agentByPersona(context.database, roomId, "songwriter");
    const run = await startAgentRun(context.database.db, roomId, { agentId: songwriter.id }, alice);
    const claimed = await claimNextRun(context.database.db, { owner: "slow", leaseMs: 5000 });
    expect(claimed?.id).toBe(run.id);
    // Transactions: 1 files the question, 2 reserves the shadow's model call, 3 stores the answer,
    // 4 is the asker's own close; the run is ended elsewhere just before it.
    const racing = interceptTransactions(context.database, async (index) => {
      if (index !== 4) return;
      const failure = { error_type: "worker_lost", error_message: "gone", retry_possible: false };
      await finishRun(context.database.db, claimed!, songwriter, { status: "failed", error: failure, durationMs: 0 }, null);
    });
    const result = await askOthers(
      { ...context.deps, database: racing },
      { roomId, asker: songwriter, runId: run.id, correlationId: run.correlationId, question: "Rain?", targetAgents: ["Scene Painter"] },
    );
    await racing.settled();
    expect(result.status).toBe("cancelled");
    expect(result.responses).toHaveLength(1);
    const [row] = await context.database.db.select().from(broadcasts).where(eq(broadcasts.roomId, roomId));
    expect(row!.status).toBe("cancelled");
  });

  it("is cancelled when its asker stops waiting for a person", async () => {
    const { roomId } = await createTestRoom(context.database.db, { broadcast: "human", broadcast_timeout: 60 });
    const stop = new AbortController();
    const asker = await agentByPersona(context.database, roomId, "songwriter");
    const asking = askOthers(context.deps, { roomId, asker, runId: null, correlationId: "c", question: "Rain?", signal: stop.signal });
    const open = await waitForOpenQuestion(context.database, roomId);
    stop.abort(new Error("cancelled"));
    expect((await asking).status).toBe("cancelled");
    expect(await statusOf(open.id)).toBe("cancelled");
    expect(await storyOf(roomId, open.id)).toEqual(["broadcast.opened:pending", "broadcast.closed:cancelled"]);
  });
});

describe("a question whose asking run starts over", () => {
  // The attempt that claims the run takes the step that asked it again, and the same call carries on with it.
  it("stays open when another worker takes the run over", async () => {
    const { roomId, run, pending } = await runWaitingOnQuestion("dies", 200);
    await new Promise((resolve) => setTimeout(resolve, 400));

    const again = await claimNextRun(context.database.db, { owner: "takes-over", leaseMs: 5000 });
    expect(again).toMatchObject({ id: run.id, attempts: 2 });
    expect(await statusOf(pending.id)).toBe("pending");
    expect(await storyOf(roomId, pending.id, run.id)).toEqual(["run.started:pending", "run.started:pending"]);
  });

  it("stays open when the run is handed back to the queue and claimed again", async () => {
    const { run, pending } = await runWaitingOnQuestion("leaving", 5000);
    await releaseRun(context.database.db, run.id, "leaving");

    expect(await claimNextRun(context.database.db, { owner: "next", leaseMs: 5000 })).toMatchObject({ id: run.id, attempts: 2 });
    expect(await statusOf(pending.id)).toBe("pending");
  });
});

describe("the scheduler's sweep for overdue questions", () => {
  it("times out questions of both modes once their deadline passes, in rooms it does not schedule too, and leaves the rest", async () => {
    const { roomId: humanRoom } = await createTestRoom(context.database.db, { broadcast: "human", broadcast_timeout: 1 });
    const { roomId: agentsRoom } = await createTestRoom(context.database.db, { broadcast: "agents", broadcast_timeout: 1 });
    const open = await leaveQuestion(context.database, humanRoom, "songwriter", {
      mode: "human",
      status: "open",
      deadlineAt: aSecondAgo(),
    });
    const waiting = await leaveQuestion(context.database, humanRoom, "scene-painter", {
      mode: "human",
      status: "waiting_turn",
      deadlineAt: aSecondAgo(),
    });
    const pending = await leaveQuestion(context.database, agentsRoom, "songwriter", {
      mode: "agents",
      status: "pending",
      deadlineAt: aSecondAgo(),
    });
    const notYet = await leaveQuestion(context.database, agentsRoom, "scene-painter", {
      mode: "agents",
      status: "pending",
      deadlineAt: inOneMinute(),
    });

    await context.database.db.delete(leases);
    await new Scheduler(context.database, { owner: "sweeper" }).tick();
    expect(await statusOf(open.id)).toBe("timeout");
    expect(await statusOf(waiting.id)).toBe("timeout");
    expect(await statusOf(pending.id)).toBe("timeout");
    expect(await statusOf(notYet.id)).toBe("pending");
    for (const [roomId, question] of [
      [humanRoom, open],
      [humanRoom, waiting],
      [agentsRoom, pending],
    ] as const) {
      expect(await storyOf(roomId, question.id)).toEqual(["broadcast.closed:timeout"]);
    }
    expect(await storyOf(agentsRoom, notYet.id)).toEqual([]);
  });
});
