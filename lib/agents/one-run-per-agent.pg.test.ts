import { MockLanguageModelV4, convertArrayToReadableStream } from "ai/test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { runs } from "@/db/schema";
import { agentByPersona, startTestWorker } from "@/test/agents";
import { alice, createTestRoom, eventually } from "@/test/fixtures";
import { mockResolver, setAgentModel, textStep } from "@/test/mock-models";
import { useTwoInstances } from "@/test/two-instances";
import { claimNextRun } from "./claim-run";
import { startAgentRun } from "./start-agent-run";

// Claims take any room's runs, so these tests keep a database of their own.
const context = useTwoInstances();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * How many model calls are in progress, per agent and in all, and the most there ever were. Each call lasts
 * long enough for the other instance to claim the next run meanwhile.
 */
function callTracker() {
  const now = new Map<string, number>();
  const most = new Map<string, number>();
  let total = 0;
  let mostInAll = 0;
  /** A model whose every call takes a while, counted as `agent`'s while it lasts. */
  const model = (agent: string) =>
    new MockLanguageModelV4({
      doStream: async () => {
        now.set(agent, (now.get(agent) ?? 0) + 1);
        most.set(agent, Math.max(most.get(agent) ?? 0, now.get(agent)!));
        mostInAll = Math.max(mostInAll, ++total);
        await sleep(800);
        now.set(agent, now.get(agent)! - 1);
        total -= 1;
        return { stream: convertArrayToReadableStream(textStep("Done.")) };
      },
    });
  return { model, mostAtOnce: (agent: string) => most.get(agent) ?? 0, mostInAll: () => mostInAll };
}

describe("one agent never runs twice at once, across app instances (PostgreSQL)", () => {
  it("gives an agent's queued runs to two instances claiming at the same moment one at a time", async () => {
    const { roomId } = await createTestRoom(context.database.db, { max_concurrent_runs: 5 });
    const songwriter = await agentByPersona(context.database, roomId, "songwriter");
    const painter = await agentByPersona(context.database, roomId, "scene-painter");
    const first = await startAgentRun(context.database.db, roomId, { agentId: songwriter.id, prompt: "One" }, alice);
    const second = await startAgentRun(context.database.db, roomId, { agentId: songwriter.id, prompt: "Two" }, alice);
    const other = await startAgentRun(context.database.db, roomId, { agentId: painter.id, prompt: "Paint" }, alice);
    const claim = (index: number) => claimNextRun(context.instances[index]!.db, { owner: `instance-${index}`, leaseMs: 60_000 });

    const together = (await Promise.all([claim(0), claim(1)])).map((run) => run?.id ?? null);
    expect(together).toContain(first.id);
    expect(together).not.toContain(second.id);
    // The painter's run is free to start beside it; the Songwriter's second is not, from either instance.
    const after = (await Promise.all([claim(0), claim(1)])).map((run) => run?.id ?? null);
    expect([...together, ...after].filter((id) => id !== null).sort()).toEqual([first.id, other.id].sort());
    await context.database.db.update(runs).set({ status: "succeeded", finishedAt: new Date() }).where(eq(runs.id, first.id));
    const next = (await Promise.all([claim(0), claim(1)])).map((run) => run?.id ?? null);
    expect(next.filter((id) => id !== null)).toEqual([second.id]);
  });

  it("runs one agent's runs one after another while two workers on two instances take them", async () => {
    const { roomId } = await createTestRoom(context.database.db, { max_concurrent_runs: 10 });
    const tracker = callTracker();
    const team = await Promise.all(["songwriter", "scene-painter"].map((persona) => agentByPersona(context.database, roomId, persona)));
    for (const agent of team) await setAgentModel(context.database, agent.id, `mock:${agent.persona}`);
    const queued: string[] = [];
    for (let round = 0; round < 3; round++) {
      for (const agent of team)
        queued.push((await startAgentRun(context.database.db, roomId, { agentId: agent.id, prompt: `Run ${round}` }, alice)).id);
    }
    const resolveModel = mockResolver(Object.fromEntries(team.map((agent) => [agent.persona, tracker.model(agent.persona)])));
    const workers = await Promise.all(context.instances.map((instance) => startTestWorker(instance, { resolveModel, pollMs: 10 })));
    try {
      await eventually(async () => {
        const finished = await context.database.db.select({ status: runs.status }).from(runs).where(eq(runs.roomId, roomId));
        expect(finished.map((run) => run.status)).toEqual(queued.map(() => "succeeded"));
      }, 30_000);
    } finally {
      for (const worker of workers) await worker.stop();
    }
    // Two runs at once in the room, but never two of one agent.
    expect(tracker.mostInAll()).toBe(2);
    for (const agent of team) expect(tracker.mostAtOnce(agent.persona)).toBe(1);
    const all = await context.database.db
      .select({ attempts: runs.attempts, owner: runs.leaseOwner })
      .from(runs)
      .where(eq(runs.roomId, roomId));
    expect(all.every((run) => run.attempts === 1)).toBe(true);
  });
});
