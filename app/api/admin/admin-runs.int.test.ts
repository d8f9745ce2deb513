import { MockLanguageModelV4 } from "ai/test";
import { and, desc, eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AdminActionKind, adminActions, agents, leases, runs, workers } from "@/db/schema";
import { claimNextRun } from "@/lib/agents/claim-run";
import { executeRun } from "@/lib/agents/execute-run";
import { startAgentRun } from "@/lib/agents/start-agent-run";
import { readEventsAfter } from "@/lib/events/read-events";
import { agentByPersona, startTestWorker } from "@/test/agents";
import { alice, createTestRoom, eventually } from "@/test/fixtures";
import { call, fromOwnAddress } from "@/test/http";
import { mockResolver, scriptedSteps, setAgentModel, textStep, toolStep, withUsage } from "@/test/mock-models";
import { testDriver } from "@/test/test-database";
import { useTestRuntime } from "@/test/test-runtime";
import { GET as findAgents } from "./agents/route";
import { GET as audit } from "./audit/route";
import { GET as instance } from "./instance/route";
import { GET as overview } from "./overview/route";
import { POST as cancel } from "./runs/[runId]/cancel/route";
import { POST as retry } from "./runs/[runId]/retry/route";
import { GET as readRun } from "./runs/[runId]/route";
import { GET as listRuns } from "./runs/route";
import { GET as readWorkflow } from "./workflows/[correlationId]/route";
import { GET as listWorkflows } from "./workflows/route";

const TOKEN = "admin-token-for-dashboard-tests";
const admin = { authorization: `Bearer ${TOKEN}` };
let saved: Record<string, string | undefined> = {};

beforeAll(() => {
  saved = { ADMIN_TOKEN: process.env.ADMIN_TOKEN };
  process.env.ADMIN_TOKEN = TOKEN;
});
afterAll(() => {
  for (const [key, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
});

const context = useTestRuntime();
const db = () => context.database.db;

type Handler<P extends Record<string, string>> = (request: Request, context: { params: Promise<P> }) => Promise<Response>;
const get = <P extends Record<string, string>>(
  handler: Handler<P>,
  url: string,
  params: P = {} as P,
  headers: Record<string, string> = admin,
) => call(handler, { url, method: "GET", params, headers });
const post = <P extends Record<string, string>>(handler: Handler<P>, url: string, params: P, headers: Record<string, string> = admin) =>
  call(handler, { url, method: "POST", params, headers });

/** Claims the next queued run, which must be `runId`, and runs it to its end on `model`. */
async function runToEnd(runId: string, model: MockLanguageModelV4) {
  const claimed = await claimNextRun(db(), { owner: "dashboard-test-worker", leaseMs: 10_000 });
  expect(claimed?.id).toBe(runId);
  return executeRun({ database: context.database, bus: context.runtime.bus, resolveModel: mockResolver({ model }) }, claimed!, {
    owner: "dashboard-test-worker",
    signal: new AbortController().signal,
    stopReason: () => null,
  });
}

const auditTrail = (action: AdminActionKind) => db().select().from(adminActions).where(eq(adminActions.action, action));

let finished: { roomId: string; runId: string; correlationId: string };
let failed: { roomId: string; runId: string };

describe("the dashboard's run endpoints", () => {
  it("open a run's steps: text, tool calls and results, tokens, cost and duration, by attempt, with its model calls", async () => {
    const { roomId } = await createTestRoom(db());
    const songwriter = await agentByPersona(context.database, roomId, "songwriter");
    await setAgentModel(context.database, songwriter.id, "mock:model");
    const run = await startAgentRun(db(), roomId, { agentId: songwriter.id, prompt: "Write about rain" }, alice);
    const model = scriptedSteps([
      withUsage(
        toolStep([{ id: "n1", name: "create_node", input: { text: "Rain taps the glass", kind: "lyric" } }], "A first line."),
        120,
        30,
      ),
      withUsage(textStep("Done: one verse."), 200, 10),
    ]);
    const outcome = await runToEnd(run.id, model);
    expect(outcome?.status).toBe("succeeded");
    finished = { roomId, runId: run.id, correlationId: run.correlationId };

    const { status, body } = await get(readRun, `/api/admin/runs/${run.id}`, { runId: run.id });
    expect(status).toBe(200);
    expect(body.run).toMatchObject({
      id: run.id,
      roomId,
      agentName: "Songwriter",
      model: "mock:model",
      status: "succeeded",
      prompt: "Write about rain",
      steps: 2,
      attempts: 1,
    });
    expect(body.steps.map((step: { step: number; attempt: number }) => [step.step, step.attempt])).toEqual([
      [0, 1],
      [1, 1],
    ]);
    expect(body.steps[0]).toMatchObject({ text: "A first line.", inputTokens: 120, outputTokens: 30 });
    expect(body.steps[0].toolCalls).toEqual([
      expect.objectContaining({ name: "create_node", input: { text: "Rain taps the glass", kind: "lyric" } }),
    ]);
    expect(body.steps[0].toolResults).toEqual([expect.objectContaining({ name: "create_node" })]);
    expect(body.steps[0].durationMs).toBeGreaterThanOrEqual(0);
    expect(body.steps[1]).toMatchObject({ text: "Done: one verse.", toolCalls: [], inputTokens: 200, outputTokens: 10 });
    // What each step's model was given, in brief: as many messages as it was sent, and what was new.
    expect(body.steps.map((step: { prompt: { messageCount: number } }) => step.prompt.messageCount)).toEqual(
      model.doStreamCalls.map((made) => made.prompt.length),
    );
    expect(body.steps[0].prompt).toMatchObject({ messageCount: 2, added: { opening: true, toolResults: 0, messages: 0, notes: 0 } });
    expect(body.steps[1].prompt).toMatchObject({ messageCount: 4, added: { opening: false, toolResults: 1, messages: 0, notes: 0 } });
    expect(body.steps[1].prompt.characters).toBeGreaterThan(body.steps[0].prompt.characters);
    expect(body.steps[0].prompt.tokens).toBe(Math.ceil(body.steps[0].prompt.characters / 4));
    expect(body.attempts).toEqual([{ attempt: 1, at: expect.any(String) }]);
    expect(body.modelCalls.map((modelCall: { step: number; inputTokens: number }) => [modelCall.step, modelCall.inputTokens])).toEqual([
      [0, 120],
      [1, 200],
    ]);
    expect((await get(readRun, "/api/admin/runs/nope", { runId: "nope" })).status).toBe(404);
  });

  it("retry a failed run: a new run with the same prompt in the same workflow, recorded in the room's log and the audit trail", async () => {
    const { roomId } = await createTestRoom(db());
    const painter = await agentByPersona(context.database, roomId, "scene-painter");
    await setAgentModel(context.database, painter.id, "mock:broken");
    const run = await startAgentRun(db(), roomId, { agentId: painter.id, prompt: "Paint the storm" }, alice);
    const broken = new MockLanguageModelV4({
      doStream: async () => {
        throw new Error("The model broke.");
      },
    });
    const claimed = await claimNextRun(db(), { owner: "dashboard-test-worker", leaseMs: 10_000 });
    expect(claimed?.id).toBe(run.id);
    const outcome = await executeRun(
      { database: context.database, bus: context.runtime.bus, resolveModel: mockResolver({ broken }) },
      claimed!,
      { owner: "dashboard-test-worker", signal: new AbortController().signal, stopReason: () => null },
    );
    expect(outcome?.status).toBe("failed");
    failed = { roomId, runId: run.id };

    const key = { ...admin, "idempotency-key": "retry-once" };
    const retried = await post(retry, `/api/admin/runs/${run.id}/retry`, { runId: run.id }, key);
    expect(retried.status).toBe(201);
    expect(retried.body.run).toMatchObject({
      status: "queued",
      agentId: painter.id,
      prompt: "Paint the storm",
      correlationId: run.correlationId,
      parentRunId: run.id,
      trigger: "human",
      requestedBy: "admin",
    });
    // The same request again (a retried click) queues nothing more.
    const again = await post(retry, `/api/admin/runs/${run.id}/retry`, { runId: run.id }, key);
    expect(again.body.run.id).toBe(retried.body.run.id);
    const roomRuns = await db().select().from(runs).where(eq(runs.roomId, roomId));
    expect(roomRuns.map((each) => each.status).sort()).toEqual(["failed", "queued"]);

    const logged = (await readEventsAfter(db(), roomId, 0)).filter((event) => event.type === "admin.action");
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({
      agent: "admin",
      correlation_id: run.correlationId,
      payload: { action: "run.retried", runId: run.id, newRunId: retried.body.run.id },
    });
    const [record] = await auditTrail("run.retried");
    expect(record).toMatchObject({ actor: "admin", roomId, details: { runId: run.id, newRunId: retried.body.run.id } });

    // Only a failed run can be retried; a refusal writes nothing.
    for (const runId of [retried.body.run.id, finished.runId]) {
      const refused = await post(retry, `/api/admin/runs/${runId}/retry`, { runId });
      expect(refused.status).toBe(400);
      expect(refused.body.error.message).toMatch(/Only a failed run can be retried/);
    }
    expect(await auditTrail("run.retried")).toHaveLength(1);
    expect((await post(retry, "/api/admin/runs/nope/retry", { runId: "nope" })).status).toBe(404);
    // Out of the way of the runs the next tests queue.
    await post(cancel, `/api/admin/runs/${retried.body.run.id}/cancel`, { runId: retried.body.run.id });
  });

  it("cancel a queued run from any room, recorded in its log and the audit trail; a finished run cannot be cancelled", async () => {
    const { roomId } = await createTestRoom(db());
    const weaver = await agentByPersona(context.database, roomId, "idea-weaver");
    const run = await startAgentRun(db(), roomId, { agentId: weaver.id, prompt: "Spin ideas" }, alice);
    const cancelled = await post(cancel, `/api/admin/runs/${run.id}/cancel`, { runId: run.id });
    expect(cancelled.body).toEqual({ runId: run.id, roomId, outcome: "cancelled" });
    const [row] = await db().select().from(runs).where(eq(runs.id, run.id));
    expect(row!.status).toBe("cancelled");
    const logged = (await readEventsAfter(db(), roomId, 0)).filter((event) => event.type === "admin.action");
    expect(logged.map((event) => [event.agent, event.payload])).toEqual([
      [
        "admin",
        { action: "run.cancelled", runId: run.id, agentId: weaver.id, newRunId: null, summary: "Cancelled Idea Weaver's queued run" },
      ],
    ]);
    const before = (await auditTrail("run.cancelled")).length;
    const refused = await post(cancel, `/api/admin/runs/${finished.runId}/cancel`, { runId: finished.runId });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(/already finished/);
    expect(await auditTrail("run.cancelled")).toHaveLength(before);
    expect((await post(cancel, "/api/admin/runs/nope/cancel", { runId: "nope" })).status).toBe(404);
  });

  it("list every room's runs newest first, a page at a time, filtered by room, agent and status", async () => {
    const first = await createTestRoom(db());
    const second = await createTestRoom(db());
    const started: string[] = [];
    for (const persona of ["songwriter", "storyteller", "songwriter", "curator"]) {
      const agent = await agentByPersona(context.database, first.roomId, persona);
      started.push((await startAgentRun(db(), first.roomId, { agentId: agent.id, prompt: `Work as ${persona}` }, alice)).id);
    }
    const storyteller = await agentByPersona(context.database, second.roomId, "storyteller");
    started.push((await startAgentRun(db(), second.roomId, { agentId: storyteller.id }, alice)).id);

    const all = await db().select({ id: runs.id }).from(runs);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: Awaited<ReturnType<typeof call>> = await get(listRuns, `/api/admin/runs?limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      expect(page.status).toBe(200);
      expect(page.body.runs.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.runs.map((run: { id: string }) => run.id));
      cursor = page.body.nextCursor;
      pages += 1;
    } while (cursor);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.sort()).toEqual(all.map((run) => run.id).sort());
    expect(pages).toBe(Math.ceil(all.length / 2));

    const newest = await get(listRuns, "/api/admin/runs?limit=5");
    expect(newest.body.runs.map((run: { id: string }) => run.id)).toEqual([...started].reverse());
    expect(newest.body.runs[0]).toMatchObject({
      roomId: second.roomId,
      roomTitle: second.room.title,
      agentName: "Storyteller",
      status: "queued",
    });

    const inFirst = await get(listRuns, `/api/admin/runs?room=${first.roomId}`);
    expect(inFirst.body.runs.map((run: { id: string }) => run.id)).toEqual(started.slice(0, 4).reverse());
    const songwriter = await agentByPersona(context.database, first.roomId, "songwriter");
    const bySongwriter = await get(listRuns, `/api/admin/runs?room=${first.roomId}&agent=${songwriter.id}`);
    expect(bySongwriter.body.runs.map((run: { id: string }) => run.id)).toEqual([started[2], started[0]]);
    const failedRuns = await get(listRuns, "/api/admin/runs?status=failed");
    expect(failedRuns.body.runs.map((run: { id: string }) => run.id)).toEqual([failed.runId]);
    expect(failedRuns.body.runs[0].error).toMatchObject({ error_message: expect.stringMatching(/broke/) });
    const queued = await get(listRuns, "/api/admin/runs?status=queued&limit=100");
    expect(queued.body.runs).toHaveLength(5);
    expect(queued.body.nextCursor).toBeNull();
  });

  it("filter by agent across rooms, by its id or every agent of a name, paging by keyset to the last run", async () => {
    const rain = await createTestRoom(db());
    const snow = await createTestRoom(db());
    const rainSongwriter = await agentByPersona(context.database, rain.roomId, "songwriter");
    const snowSongwriter = await agentByPersona(context.database, snow.roomId, "songwriter");
    const rainCurator = await agentByPersona(context.database, rain.roomId, "curator");
    // Runs sharing their creation time, so that only the ids order them, between other agents' runs.
    const at = new Date(Date.now() - 60_000);
    for (const [index, agent] of [rainSongwriter, snowSongwriter, rainCurator, rainSongwriter, snowSongwriter, rainSongwriter].entries()) {
      await db()
        .insert(runs)
        .values({
          id: `agent-filter-${index}`,
          roomId: agent.roomId,
          agentId: agent.id,
          status: "succeeded",
          trigger: "human",
          requestedBy: "human:alice",
          prompt: `Run ${index}`,
          correlationId: `agent-filter-${index}`,
          createdAt: at,
        });
    }
    const everyPage = async (query: string) => {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: Awaited<ReturnType<typeof call>> = await get(
          listRuns,
          `/api/admin/runs?${query}&limit=1${cursor ? `&cursor=${cursor}` : ""}`,
        );
        expect(page.status, query).toBe(200);
        seen.push(...page.body.runs.map((run: { id: string }) => run.id));
        cursor = page.body.nextCursor;
      } while (cursor && seen.length < 100);
      return seen;
    };
    const newestFirst = async (agentIds: string[]) =>
      (
        await db().select({ id: runs.id }).from(runs).where(inArray(runs.agentId, agentIds)).orderBy(desc(runs.createdAt), desc(runs.id))
      ).map((run) => run.id);

    // One agent by its id, with no room chosen.
    const byId = await everyPage(`agent=${rainSongwriter.id}`);
    expect(byId).toEqual(await newestFirst([rainSongwriter.id]));
    expect(byId).toEqual(expect.arrayContaining(["agent-filter-5", "agent-filter-3", "agent-filter-0"]));
    // Every agent of a name (any case), across rooms: every Songwriter's runs, each once.
    const songwriters = (await db().select({ id: agents.id }).from(agents).where(eq(agents.name, "Songwriter"))).map((agent) => agent.id);
    const byName = await everyPage("agent=songwriter");
    expect(byName).toEqual(await newestFirst(songwriters));
    expect(new Set(byName).size).toBe(byName.length);
    expect(byName).toEqual(expect.arrayContaining(["agent-filter-4", "agent-filter-1"]));
    expect(byName).not.toContain("agent-filter-2");
    // A name in one room: that room's agent only.
    expect(await everyPage(`agent=Songwriter&room=${snow.roomId}`)).toEqual(await newestFirst([snowSongwriter.id]));
    expect(await everyPage(`agent=Songwriter&room=${snow.roomId}&status=succeeded`)).toEqual(["agent-filter-4", "agent-filter-1"]);

    // An agent that is not there is a 400 saying so, not an empty list.
    const unknown = await get(listRuns, "/api/admin/runs?agent=Nobody");
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toBe('agent: no agent has the id or name "Nobody" on this instance.');
    const elsewhere = await get(listRuns, `/api/admin/runs?agent=${rainSongwriter.id}&room=${snow.roomId}`);
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.error.message).toMatch(/in this room\.$/);

    // The picker finds agents by name across the instance, with their rooms; or in one room.
    const found = await get(findAgents, "/api/admin/agents?q=SONG&limit=50");
    expect(found.status).toBe(200);
    const foundIds = found.body.agents.map((agent: { id: string }) => agent.id);
    expect(foundIds).toEqual(expect.arrayContaining([rainSongwriter.id, snowSongwriter.id]));
    expect(found.body.agents.every((agent: { name: string }) => agent.name === "Songwriter")).toBe(true);
    expect(found.body.agents.find((agent: { id: string }) => agent.id === snowSongwriter.id)).toMatchObject({
      roomId: snow.roomId,
      roomTitle: snow.room.title,
    });
    const inRain = await get(findAgents, `/api/admin/agents?room=${rain.roomId}`);
    expect(inRain.body.agents.map((agent: { roomId: string }) => agent.roomId)).toEqual(inRain.body.agents.map(() => rain.roomId));
    expect(inRain.body.agents.length).toBeGreaterThan(1);
    expect((await get(findAgents, `/api/admin/agents?q=${rainCurator.id}`)).body.agents.map((agent: { id: string }) => agent.id)).toEqual([
      rainCurator.id,
    ]);
    expect((await get(findAgents, "/api/admin/agents?q=song&limit=1")).body.agents).toHaveLength(1);
    for (const [query, reason] of [
      ["limit=0", /limit/],
      ["name=x", /unknown parameter\(s\) name/],
    ] as const) {
      const refused = await get(findAgents, `/api/admin/agents?${query}`);
      expect(refused.status, query).toBe(400);
      expect(refused.body.error.message).toMatch(reason);
    }
  });

  it("answer a bad query with 400 and the reason", async () => {
    const bad: [string, RegExp][] = [
      ["status=done", /status/],
      ["limit=0", /limit/],
      ["limit=1000", /limit/],
      ["cursor=not-a-cursor", /cursor must be the nextCursor of an earlier page/],
      ["colour=red", /unknown parameter\(s\) colour/],
    ];
    for (const [query, reason] of bad) {
      const answer = await get(listRuns, `/api/admin/runs?${query}`);
      expect(answer.status, query).toBe(400);
      expect(answer.body.error.message).toMatch(reason);
    }
    expect((await get(overview, "/api/admin/overview?range=year")).status).toBe(400);
    expect((await get(audit, "/api/admin/audit?limit=-1")).status).toBe(400);
    expect((await get(listWorkflows, "/api/admin/workflows")).body.error.message).toMatch(/room/);
  });

  it("show the instance at a glance: rooms, watchers, runs queued and running, and what was spent by model and agent", async () => {
    const { status, body } = await get(overview, "/api/admin/overview?range=day");
    expect(status).toBe(200);
    const { overview: shown } = body;
    const roomCount = (await db().select({ id: runs.roomId }).from(runs).groupBy(runs.roomId)).length;
    expect(shown.rooms.total).toBeGreaterThanOrEqual(roomCount);
    expect(shown.runs).toEqual({ queued: 5, running: 0, failedToday: 1 });
    // The songwriter's two calls: 120 + 30 and 200 + 10 tokens.
    expect(shown.spend.today).toMatchObject({ calls: 2, inputTokens: 320, outputTokens: 40 });
    expect(shown.spend.week.calls).toBe(2);
    // Today's budget reads the same calls, as the checks before each run and step do.
    expect(shown.budget.tokens.used).toBe(360);
    expect(shown.usage.buckets).toHaveLength(24);
    const model = shown.usage.byModel.find((series: { key: string }) => series.key === "mock:model");
    expect(model.tokens.reduce((sum: number, value: number) => sum + value, 0)).toBe(360);
    expect(model.tokens.at(-1)).toBe(360);
    expect(shown.usage.byAgent.map((series: { label: string }) => series.label)).toEqual(["Songwriter"]);
    const week = await get(overview, "/api/admin/overview");
    expect(week.body.overview.usage.buckets).toHaveLength(28);
  });

  it("find a workflow by its correlation id alone, with its room, its agents and its messages in order", async () => {
    const { status, body } = await get(readWorkflow, `/api/admin/workflows/${finished.correlationId}`, {
      correlationId: finished.correlationId,
    });
    expect(status).toBe(200);
    expect(body.room.id).toBe(finished.roomId);
    expect(body.agents.map((agent: { name: string }) => agent.name)).toContain("Songwriter");
    expect(body.workflow).toMatchObject({ correlationId: finished.correlationId, runs: 1, status: "complete" });
    expect(body.workflow.messages[0].type).toBe("run.queued");
    expect(body.workflow.messages.map((message: { type: string }) => message.type)).toContain("run.step");
    expect((await get(readWorkflow, "/api/admin/workflows/nope", { correlationId: "nope" })).status).toBe(404);
    const listed = await get(listWorkflows, `/api/admin/workflows?room=${finished.roomId}`);
    expect(listed.body.workflows.map((workflow: { correlationId: string }) => workflow.correlationId)).toEqual([finished.correlationId]);
    expect((await get(listWorkflows, "/api/admin/workflows?room=nope")).status).toBe(404);
  });

  it("say who holds the scheduler, which workers hold which runs, the database, its migrations and the providers", async () => {
    await db()
      .insert(leases)
      .values({ name: "scheduler", owner: "instance-b", expiresAt: new Date(Date.now() + 4000) });
    const { roomId } = await createTestRoom(db());
    const curator = await agentByPersona(context.database, roomId, "curator");
    const run = await startAgentRun(db(), roomId, { agentId: curator.id }, alice);
    await db()
      .update(runs)
      .set({
        status: "running",
        leaseOwner: "instance-b:worker:claim-1",
        leaseExpiresAt: new Date(Date.now() + 30_000),
        startedAt: new Date(),
      })
      .where(eq(runs.id, run.id));

    const { status, body } = await get(instance, "/api/admin/instance");
    expect(status).toBe(200);
    const shown = body.instance;
    expect(shown.instance.id).toBe("test-instance");
    expect(shown.database.driver).toBe(testDriver());
    expect(shown.database.migrations.pending).toEqual([]);
    expect(shown.database.migrations.applied).toBe(shown.database.migrations.available);
    expect(shown.scheduler).toMatchObject({ holder: "instance-b", held: true });
    expect(Date.parse(shown.scheduler.nextTickAt)).toBeGreaterThan(Date.parse(shown.scheduler.lastTickAt));
    // instance-b's worker holds a run but is not heard from (its instance died): listed until the lease lapses.
    expect(shown.workers).toEqual([
      {
        owner: "instance-b:worker",
        instanceId: "instance-b",
        startedAt: null,
        lastHeartbeatAt: null,
        runs: [expect.objectContaining({ id: run.id, roomId, agentName: "Creative Curator" })],
      },
    ]);
    expect(shown.instances.find((entry: { id: string }) => entry.id === "instance-b")).toMatchObject({ runs: 1, scheduler: true });
    expect(shown.providers.find((entry: { provider: string }) => entry.provider === "script")).toEqual({
      provider: "script",
      configured: true,
      reason: null,
    });
    await db()
      .update(runs)
      .set({ status: "cancelled", leaseOwner: null })
      .where(and(eq(runs.id, run.id)));
  });

  it("list every live worker, idle ones too, with its last heartbeat; a worker that stopped or went silent is not listed", async () => {
    const workerNames = async () =>
      (await get(instance, "/api/admin/instance")).body.instance.workers.map((worker: { owner: string }) => worker.owner);
    // A worker whose instance died an hour ago left its row behind.
    await db()
      .insert(workers)
      .values({ name: "instance-gone:worker", startedAt: new Date(Date.now() - 7_200_000), lastSeenAt: new Date(Date.now() - 3_600_000) });
    // It takes no run (no free slot), so the runs other tests left queued stay as they are.
    const idle = await startTestWorker(context.database, { owner: "instance-c:worker", beatMs: 50, maxParallel: 0 });
    try {
      const first = (await get(instance, "/api/admin/instance")).body.instance;
      const listed = first.workers.find((worker: { owner: string }) => worker.owner === "instance-c:worker");
      expect(listed).toEqual({
        owner: "instance-c:worker",
        instanceId: "instance-c",
        startedAt: expect.any(String),
        lastHeartbeatAt: expect.any(String),
        runs: [],
      });
      expect(first.instances.find((entry: { id: string }) => entry.id === "instance-c")).toMatchObject({ runs: 0 });
      expect(await workerNames()).not.toContain("instance-gone:worker");
      // Its heartbeat moves on while it waits for work.
      await eventually(async () => {
        const later = (await get(instance, "/api/admin/instance")).body.instance.workers.find(
          (worker: { owner: string }) => worker.owner === "instance-c:worker",
        );
        expect(Date.parse(later.lastHeartbeatAt)).toBeGreaterThan(Date.parse(listed.lastHeartbeatAt));
      });
    } finally {
      await idle.stop();
    }
    expect(await workerNames()).not.toContain("instance-c:worker");
  });

  it("list the audit trail newest first, a page at a time, and one room's changes", async () => {
    const first = await get(audit, "/api/admin/audit?limit=1");
    expect(first.body.actions).toHaveLength(1);
    const second = await get(audit, `/api/admin/audit?limit=1&cursor=${first.body.nextCursor}`);
    expect(second.body.actions[0].id).not.toBe(first.body.actions[0].id);
    expect(Date.parse(second.body.actions[0].at)).toBeLessThanOrEqual(Date.parse(first.body.actions[0].at));
    const inRoom = await get(audit, `/api/admin/audit?room=${failed.roomId}`);
    expect(inRoom.body.actions.map((action: { action: string }) => action.action)).toEqual(["run.cancelled", "run.retried"]);
    expect(inRoom.body.actions[0]).toMatchObject({
      roomId: failed.roomId,
      roomTitle: expect.stringMatching(/^Test room/),
      roomExists: true,
    });
  });

  it("refuse everyone else: 401 without credentials, 403 with wrong ones, changing nothing", async () => {
    const { roomId } = await createTestRoom(db());
    const agent = await agentByPersona(context.database, roomId, "songwriter");
    const run = await startAgentRun(db(), roomId, { agentId: agent.id }, alice);
    const attempts: [Record<string, string>, number][] = [
      [{}, 401],
      [{ authorization: "Bearer wrong-token-wrong-token" }, 403],
      [{ cookie: "parley_admin=forged" }, 403],
    ];
    for (const [headers, expected] of attempts) {
      expect((await get(overview, "/api/admin/overview", {}, fromOwnAddress(headers))).status).toBe(expected);
      expect((await get(listRuns, "/api/admin/runs", {}, fromOwnAddress(headers))).status).toBe(expected);
      expect((await get(findAgents, "/api/admin/agents?q=song", {}, fromOwnAddress(headers))).status).toBe(expected);
      expect((await get(readRun, `/api/admin/runs/${run.id}`, { runId: run.id }, fromOwnAddress(headers))).status).toBe(expected);
      expect((await post(cancel, `/api/admin/runs/${run.id}/cancel`, { runId: run.id }, fromOwnAddress(headers))).status).toBe(expected);
      expect((await post(retry, `/api/admin/runs/${failed.runId}/retry`, { runId: failed.runId }, fromOwnAddress(headers))).status).toBe(
        expected,
      );
      expect(
        (
          await get(
            readWorkflow,
            `/api/admin/workflows/${run.correlationId}`,
            { correlationId: run.correlationId },
            fromOwnAddress(headers),
          )
        ).status,
      ).toBe(expected);
      expect((await get(listWorkflows, `/api/admin/workflows?room=${roomId}`, {}, fromOwnAddress(headers))).status).toBe(expected);
      expect((await get(instance, "/api/admin/instance", {}, fromOwnAddress(headers))).status).toBe(expected);
      expect((await get(audit, "/api/admin/audit", {}, fromOwnAddress(headers))).status).toBe(expected);
      // Even a bad query is refused for who asks before it is read.
      expect((await get(listRuns, "/api/admin/runs?status=done", {}, fromOwnAddress(headers))).status).toBe(expected);
    }
    const [row] = await db().select().from(runs).where(eq(runs.id, run.id));
    expect(row!.status).toBe("queued");
    expect(await db().select().from(runs).where(eq(runs.parentRunId, failed.runId))).toHaveLength(1);
  });
});
