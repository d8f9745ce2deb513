// Agent throughput: runs per minute through the real queue, workers, tools and database
// with a zero-latency scripted model, and the orchestration overhead per step (time spent
// outside the model), on PGlite and on PostgreSQL, beside the same persona runs driven
// in memory with no queue and no database. Ends with one line of JSON.
// Usage: npm run bench:agents [-- --rooms=6 --workers=2 --solo=3]
//        npm run bench:agents -- --only=retries   (only the run beside retries, on PostgreSQL)
//        npm run bench:agents -- --only=lookup    (only the workflow lookup, on PostgreSQL)
// The workflow templates register what they add to the agent engine.
import "@/lib/workflows";
import { APICallError, type LanguageModelV4 } from "@ai-sdk/provider";
import { type StepResult, type ToolSet, isStepCount, streamText, tool } from "ai";
import { and, eq, inArray, sql } from "drizzle-orm";
import { z } from "zod";
import { type Database, migrateDatabase, openPglite, openPostgres } from "@/db/client";
import { rowsOf } from "@/db/rows";
import { agentNotes, runs, seats } from "@/db/schema";
import { sendCommand } from "@/lib/commands/send-command";
import { readWorkflow } from "@/lib/workflows/read-workflow";
import { buildPrompt } from "@/lib/agents/build-prompt";
import { startAgentRun } from "@/lib/agents/start-agent-run";
import { AgentWorker } from "@/lib/agents/worker";
import type { ResolvedModel } from "@/lib/models/registry";
import { createScriptModel } from "@/lib/models/script/script-model";
import { RoomBus } from "@/lib/realtime/bus";
import { BENCH_OTEL, benchTraceExport } from "./support/otel";
import { createRoom } from "@/lib/rooms/create-room";
import { DEFAULT_ROOM_SETTINGS } from "@/lib/rooms/room-settings";
import { CREATIVE_CANVAS } from "@/lib/rooms/templates";
import { freshPostgres } from "./support/local-postgres";
import { args, percentile, round } from "./support/stats";
import { timedModel } from "./support/timed-model";

const options = args();
const ROOMS = Number(options.rooms ?? 6);
const WORKERS = Number(options.workers ?? 2);
/** Passes of one room run before measuring, whose figures are dropped: a running worker, not a cold one. */
const WARMUP_PASSES = Number(options.warmup ?? 1);
/** Rooms whose runs are taken one at a time for the overhead of a step. */
const SOLO_ROOMS = Number(options.solo ?? 3);
/** Runs of the committing floor before measuring it, likewise dropped. */
const WARMUP_RUNS = 10;
/** Participants' messages timed per driver, to a running agent and to an idle one. */
const COMMANDS = Number(options.commands ?? 30);
/** The orchestration overhead a step may add on PostgreSQL. */
const OVERHEAD_TARGET_MS = 5;
/** How long a message to an idle agent may take to start its run, at p99. */
const COMMAND_TO_START_TARGET_MS = 250;
/** The workflow endpoint's read at p99 among 200,000 events on PostgreSQL. */
const LOOKUP_TARGET_MS = 20;
/** How much slower a run's steps may be beside runs waiting between retries: others not slowed by more than 10%. */
const RETRY_NEIGHBOUR_TARGET = 1.1;

const verdict = (met: boolean) => (met ? "met" : "not met");

/** Times every model call from its start to the end of its stream. */
function timed(inner: LanguageModelV4, spent: { ms: number; calls: number }): LanguageModelV4 {
  return timedModel(inner, (start, end) => {
    spent.ms += end - start;
    spent.calls += 1;
  });
}

const persona = (key: string) => CREATIVE_CANVAS.agents.find((agent) => agent.persona === key)!;

interface Pass {
  runs: number;
  steps: number;
  wall_ms: number;
  runs_per_minute: number;
  model_ms_per_step: number;
  overhead_ms_per_step: number;
  tool_calls_per_step: number;
}

/**
 * Runs every agent of `rooms` rooms once (plus the runs they request) through the queue
 * with `workers` workers each running up to `parallel` runs, and measures the pass.
 */
async function pass(database: Database, label: string, rooms: number, workers: number, parallel: number): Promise<Pass> {
  const spent = { ms: 0, calls: 0 };
  const resolve = (spec: string): ResolvedModel => ({
    model: timed(createScriptModel({ name: spec.replace(/^script:/, ""), paceMs: 0, latencyMs: 0 }), spent),
    provider: "script",
    modelId: spec,
    spec,
    scripted: true,
  });
  const roomIds: string[] = [];
  for (let index = 0; index < rooms; index++) {
    const { room } = await createRoom(database.db, { title: `Bench ${index}`, template: CREATIVE_CANVAS.id }, {});
    roomIds.push(room.id);
  }
  const buses: RoomBus[] = [];
  const workerList: AgentWorker[] = [];
  for (let index = 0; index < workers; index++) {
    const bus = new RoomBus(database);
    await bus.start();
    buses.push(bus);
    workerList.push(
      new AgentWorker(database, bus, { owner: `bench-${label}-${index}`, resolveModel: resolve, maxParallel: parallel, pollMs: 20 }),
    );
  }

  const traces = await benchTraceExport(database);
  const started = performance.now();
  for (const roomId of roomIds) {
    const team = rowsOf<{ id: string; persona: string }>(
      await database.db.execute(sql`select id, persona from agents where room_id = ${roomId}`),
    );
    for (const member of team) {
      await startAgentRun(
        database.db,
        roomId,
        { agentId: member.id, prompt: `Bench run for ${member.persona} about rain on the window` },
        { id: "bench", name: "Bench" },
      );
    }
  }
  await Promise.all(workerList.map((worker) => worker.start()));
  while (true) {
    const [active] = rowsOf<{ count: number | string }>(
      await database.db.execute(sql`select count(*) as count from runs where status in ('queued', 'running')`),
    );
    if (Number(active?.count ?? 0) === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const wall = performance.now() - started;
  await Promise.all(workerList.map((worker) => worker.stop()));
  await Promise.all(buses.map((bus) => bus.stop()));
  await traces?.stop();

  const finished = await database.db.select().from(runs).where(inArray(runs.roomId, roomIds));
  const failed = finished.filter((run) => run.status !== "succeeded");
  if (failed.length) throw new Error(`${failed.length} runs did not succeed: ${JSON.stringify(failed[0]!.error)}`);
  const steps = finished.reduce((total, run) => total + run.steps, 0);
  const [called] = rowsOf<{ count: number | string }>(
    await database.db.execute(
      sql`select coalesce(sum(jsonb_array_length(payload->'toolCalls')), 0) as count from events where type = 'run.step' and room_id in (${sql.join(
        roomIds.map((id) => sql`${id}`),
        sql`, `,
      )})`,
    ),
  );
  const runTime = finished.reduce((total, run) => total + (run.finishedAt!.getTime() - run.startedAt!.getTime()), 0);
  return {
    runs: finished.length,
    steps,
    wall_ms: round(wall, 0),
    runs_per_minute: round((finished.length / wall) * 60_000, 1),
    model_ms_per_step: round(spent.ms / steps, 3),
    overhead_ms_per_step: round((runTime - spent.ms) / steps, 2),
    tool_calls_per_step: round(Number(called?.count ?? 0) / steps, 2),
  };
}

/** Stores one thing a run made (a tool's change, or a finished step) durably, as its own commit. */
type Store = (kind: string, body: unknown) => Promise<void>;

/**
 * The same persona runs with tools that only echo: the model and the SDK loop alone. Given
 * `store`, every tool call and every finished step is also kept by it before the run goes on:
 * the floor under any server that keeps each change an agent makes and each step it takes.
 */
async function withoutParley(
  runCount: number,
  store?: Store,
): Promise<{ ms_per_step: number; overhead_ms_per_step: number; runs_per_minute: number; tool_calls_per_step: number }> {
  const spent = { ms: 0, calls: 0 };
  let nextId = 0;
  let toolCalls = 0;
  const echo = (result: (input: Record<string, unknown>) => object) =>
    tool({
      inputSchema: z.record(z.string(), z.unknown()),
      execute: async (input) => {
        toolCalls += 1;
        await store?.("change", input);
        return { ok: true, ...result(input) };
      },
    });
  const tools = {
    create_node: echo((input) => ({ node: { id: `n${++nextId}`, x: input.x ?? 0, y: input.y ?? 0, text: input.text } })),
    create_edge: echo(() => ({ edge: { id: `e${++nextId}` } })),
    update_node: echo(() => ({})),
    delete_node: echo(() => ({})),
    delete_edge: echo(() => ({})),
    share_creative_context: echo(() => ({ entryId: `b${++nextId}` })),
    read_shared_context: echo(() => ({ entries: [] })),
    request_agent: echo(() => ({ requestId: `b${++nextId}`, runId: "r", status: "queued" })),
  };
  const personas = CREATIVE_CANVAS.agents.map((agent) => agent.persona);
  let steps = 0;
  const started = performance.now();
  for (let index = 0; index < runCount; index++) {
    const key = personas[index % personas.length]!;
    const agent = persona(key);
    const { system, prompt } = buildPrompt({
      agent: { name: agent.name, persona: key, role: agent.role, systemPrompt: agent.systemPrompt },
      team: CREATIVE_CANVAS.agents,
      settings: DEFAULT_ROOM_SETTINGS,
      run: { prompt: `Bench run for ${key} about rain on the window`, trigger: "human", requestedByName: "Bench", chainDepth: 0 },
      canvas: { nodes: [], edges: [] },
      referencedNodes: [],
      board: [],
      requests: [],
      notes: [],
      toolNames: Object.keys(tools),
    });
    const result = streamText({
      model: timed(createScriptModel({ name: key, paceMs: 0, latencyMs: 0 }), spent),
      system,
      prompt,
      tools,
      stopWhen: isStepCount(10),
      ...(store ? { onStepEnd: (step: StepResult<ToolSet>) => store("step", { text: step.text, usage: step.usage }) } : {}),
    });
    await result.consumeStream();
    steps += (await result.steps).length;
  }
  const wall = performance.now() - started;
  return {
    ms_per_step: round(wall / steps, 3),
    // The SDK's own loop outside the model (validating calls, running tools, assembling steps):
    // the part of Parley's overhead per step that no database work can remove.
    overhead_ms_per_step: round((wall - spent.ms) / steps, 2),
    runs_per_minute: round((runCount / wall) * 60_000, 1),
    tool_calls_per_step: round(toolCalls / steps, 2),
  };
}

/**
 * A store that keeps each thing as one row with one statement and one synchronous commit on
 * the PostgreSQL server at `url`, with a connection of its own: no room lock, no events, no
 * sequence numbers, no budgets.
 */
async function committingStore(url: string): Promise<{ store: Store; close: () => Promise<void> }> {
  const { default: postgres } = await import("postgres");
  const client = postgres(url, { max: 1, onnotice: () => {} });
  await client`create table if not exists bench_floor (id bigserial primary key, kind text not null, body jsonb not null, at timestamptz not null default now())`;
  return {
    store: async (kind, body) => {
      await client`insert into bench_floor (kind, body) values (${kind}, ${client.json(body as never)})`;
    },
    close: () => client.end({ timeout: 5 }),
  };
}

interface CommandFigures {
  command_to_model_p50_ms: number;
  command_to_model_p99_ms: number;
  command_to_start_p50_ms: number;
  command_to_start_p99_ms: number;
  /** One step of the scripted model at full speed, from one of the Songwriter's model calls' start to the next's, in the same runs. */
  step_p50_ms: number;
  step_p99_ms: number;
  /** Messages to the running agent read in the first of its model calls to start after they were sent: within one step. */
  command_to_model_within_step: number;
}

/**
 * A participant's message, timed: sent to a running agent → the first model call whose prompt
 * holds it (the script model sees it as a provider would), and sent to an idle agent → its
 * new run started (the run's `startedAt` less the message's time, both taken in the same process).
 * A message to the running agent was read within one step when no call of that agent started
 * between its sending and the call that read it.
 */
async function commandLatencies(database: Database, driver: string): Promise<CommandFigures> {
  const calls: { at: number; prompt: string; spec: string }[] = [];
  // Waiting for a model call is idle, not a spinning poll that would take a core from the worker.
  let callMade: (() => void) | null = null;
  const nextCall = () => new Promise<void>((resolve) => (callMade = resolve));
  const resolve = (spec: string): ResolvedModel => {
    const inner = createScriptModel({ name: spec.replace(/^script:/, ""), paceMs: 0, latencyMs: 0 });
    const model: LanguageModelV4 = {
      ...timed(inner, { ms: 0, calls: 0 }),
      doStream: (callOptions) => {
        calls.push({ at: performance.now(), prompt: JSON.stringify(callOptions.prompt), spec });
        callMade?.();
        return inner.doStream(callOptions);
      },
    };
    return { model, provider: "script", modelId: spec, spec, scripted: true };
  };
  const { room, agents } = await createRoom(
    database.db,
    { title: `Bench commands ${driver}`, template: CREATIVE_CANVAS.id },
    { settings: { commands_per_minute: 600, max_steps: 50 } },
  );
  const songwriter = agents.find((agent) => agent.persona === "songwriter")!;
  const seat = { id: `bench-seat-${driver}`, displayName: "Ada" };
  await database.db.insert(seats).values({ ...seat, roomId: room.id, tokenHash: `bench-${driver}` });
  const bus = new RoomBus(database);
  await bus.start();
  const worker = new AgentWorker(database, bus, { owner: `bench-commands-${driver}`, resolveModel: resolve, pollMs: 1000 });
  await worker.start();
  const idle = async () => {
    for (;;) {
      const active = await database.db
        .select({ id: runs.id })
        .from(runs)
        .where(and(eq(runs.roomId, room.id), inArray(runs.status, ["queued", "running"])));
      if (active.length === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };
  const toModel: number[] = [];
  const toStart: number[] = [];
  const steps: number[] = [];
  let withinStep = 0;
  // The Songwriter's own calls: a teammate it asks, or a shadow answering its question, calls a model too.
  const songwriterCalls = (from: number) => calls.slice(from).filter((call) => call.spec === songwriter.model);
  try {
    for (let index = 0; index < COMMANDS; index++) {
      // To a running agent: sent as soon as its run has called the model once.
      const seen = calls.length;
      let called = nextCall();
      await startAgentRun(
        database.db,
        room.id,
        { agentId: songwriter.id, prompt: "Write a verse about rain on the window" },
        { id: "bench", name: "Bench" },
      );
      while (calls.length === seen) await called;
      const marker = `running-${driver}-${index}`;
      await sendCommand(database.db, room.id, seat, `@Songwriter ${marker}`);
      // Sent: stored and acknowledged, as the participant's page sees it.
      const sent = performance.now();
      for (;;) {
        called = nextCall();
        const call = calls.slice(seen).find((candidate) => candidate.prompt.includes(marker));
        if (call) {
          toModel.push(call.at - sent);
          if (!songwriterCalls(seen).some((other) => other.at >= sent && other.at < call.at)) withinStep += 1;
          break;
        }
        await called;
      }
      await idle();
      const runCalls = songwriterCalls(seen).map((call) => call.at);
      for (let step = 1; step < runCalls.length; step++) steps.push(runCalls[step]! - runCalls[step - 1]!);

      // To an idle agent: a run of its own.
      const { command } = (await sendCommand(database.db, room.id, seat, `@Songwriter idle-${driver}-${index}`)) as {
        command: { id: string; runId: string };
      };
      await idle();
      const [note] = await database.db.select({ createdAt: agentNotes.createdAt }).from(agentNotes).where(eq(agentNotes.id, command.id));
      const [run] = await database.db.select({ startedAt: runs.startedAt }).from(runs).where(eq(runs.id, command.runId));
      toStart.push(run!.startedAt!.getTime() - note!.createdAt.getTime());
    }
  } finally {
    await worker.stop();
    await bus.stop();
  }
  const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
  return {
    command_to_model_p50_ms: round(percentile(sorted(toModel), 50), 1),
    command_to_model_p99_ms: round(percentile(sorted(toModel), 99), 1),
    command_to_start_p50_ms: round(percentile(sorted(toStart), 50), 1),
    command_to_start_p99_ms: round(percentile(sorted(toStart), 99), 1),
    step_p50_ms: round(percentile(sorted(steps), 50), 1),
    step_p99_ms: round(percentile(sorted(steps), 99), 1),
    command_to_model_within_step: withinStep,
  };
}

interface Figures extends CommandFigures {
  driver: string;
  runs_per_minute: number;
  overhead_ms_per_step: number;
  model_ms_per_step: number;
  runs: number;
  steps: number;
  wall_ms: number;
  loaded_overhead_ms_per_step: number;
  tool_calls_per_step: number;
}

/** Throughput with every room busy, and the overhead of a step when runs go one at a time. */
async function measureDriver(driver: string, database: Database): Promise<Figures> {
  await migrateDatabase(database);
  for (let index = 0; index < WARMUP_PASSES; index++) await pass(database, `${driver}-warmup-${index}`, 1, 1, 1);
  const solo = await pass(database, `${driver}-solo`, SOLO_ROOMS, 1, 1);
  const loaded = await pass(database, `${driver}-loaded`, ROOMS, WORKERS, 8);
  const commands = await commandLatencies(database, driver);
  return {
    ...commands,
    driver,
    runs_per_minute: loaded.runs_per_minute,
    overhead_ms_per_step: solo.overhead_ms_per_step,
    model_ms_per_step: solo.model_ms_per_step,
    runs: loaded.runs,
    steps: loaded.steps,
    wall_ms: loaded.wall_ms,
    loaded_overhead_ms_per_step: loaded.overhead_ms_per_step,
    tool_calls_per_step: solo.tool_calls_per_step,
  };
}

/**
 * Whether a run waiting between retries slows the others: the Storyteller's runs timed alone,
 * then beside Songwriter runs whose provider always answers 503 (retried after 150 ms, three
 * times), alternating blocks so both see the same machine. Returns the ratio of the medians.
 */
async function retryNeighbour(database: Database, samples = 24) {
  const failing: LanguageModelV4 = {
    specificationVersion: "v4",
    provider: "bench",
    modelId: "unavailable",
    supportedUrls: {},
    doGenerate: () =>
      Promise.reject(new APICallError({ message: "busy", url: "http://bench", requestBodyValues: {}, statusCode: 503, isRetryable: true })),
    doStream: () =>
      Promise.reject(new APICallError({ message: "busy", url: "http://bench", requestBodyValues: {}, statusCode: 503, isRetryable: true })),
  };
  const resolve = (spec: string): ResolvedModel =>
    spec === "bench:unavailable"
      ? { model: failing, provider: "script", modelId: spec, spec, scripted: true }
      : {
          model: createScriptModel({ name: spec.replace(/^script:/, ""), paceMs: 0, latencyMs: 0 }),
          provider: "script",
          modelId: spec,
          spec,
          scripted: true,
        };
  const { room, agents } = await createRoom(
    database.db,
    { title: "Bench retries", template: CREATIVE_CANVAS.id },
    { settings: { max_concurrent_runs: 5 } },
  );
  const storyteller = agents.find((agent) => agent.persona === "storyteller")!;
  const songwriter = agents.find((agent) => agent.persona === "songwriter")!;
  await database.db.execute(sql`update agents set model = 'bench:unavailable' where id = ${songwriter.id}`);
  const bus = new RoomBus(database);
  await bus.start();
  const worker = new AgentWorker(database, bus, {
    owner: "bench-retries",
    resolveModel: resolve,
    maxParallel: 4,
    pollMs: 20,
    execute: { retryDelaysMs: [150, 150, 150] },
  });
  await worker.start();
  const finish = async (runId: string) => {
    for (;;) {
      const [row] = await database.db.select().from(runs).where(eq(runs.id, runId));
      if (row && row.status !== "queued" && row.status !== "running") return row;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };
  const alone: number[] = [];
  const beside: number[] = [];
  try {
    for (let index = 0; index < samples; index++) {
      const withNeighbour = index % 2 === 1;
      const neighbours = withNeighbour
        ? await Promise.all(
            [1, 2].map(() =>
              startAgentRun(database.db, room.id, { agentId: songwriter.id, prompt: "Write" }, { id: "bench", name: "Bench" }),
            ),
          )
        : [];
      if (withNeighbour) await new Promise((resolve) => setTimeout(resolve, 30));
      const run = await startAgentRun(
        database.db,
        room.id,
        { agentId: storyteller.id, prompt: "Tell a tiny story" },
        { id: "bench", name: "Bench" },
      );
      const done = await finish(run.id);
      const perStep = (done.finishedAt!.getTime() - done.startedAt!.getTime()) / Math.max(1, done.steps);
      (withNeighbour ? beside : alone).push(perStep);
      for (const neighbour of neighbours) await finish(neighbour.id);
    }
  } finally {
    await worker.stop();
    await bus.stop();
  }
  const med = (values: number[]) =>
    percentile(
      [...values].sort((a, b) => a - b),
      50,
    );
  return {
    alone_ms_per_step: round(med(alone), 2),
    beside_retries_ms_per_step: round(med(beside), 2),
    ratio: round(med(beside) / med(alone), 2),
  };
}

/**
 * The workflow endpoint's lookup on a big database: `rooms` rooms of `perRoom` events each,
 * every room's events spread over 20 workflows; then `samples` workflows read at random.
 */
async function workflowLookup(database: Database, rooms = 100, perRoom = 2000, samples = 300) {
  const picked: { roomId: string; correlationId: string }[] = [];
  for (let index = 0; index < rooms; index++) {
    const { room, agents } = await createRoom(database.db, { title: `Lookup ${index}`, template: CREATIVE_CANVAS.id }, {});
    const agentId = agents[0]!.id;
    await database.db.execute(sql`
      insert into runs (id, room_id, agent_id, status, trigger, requested_by, prompt, correlation_id, steps, attempts, created_at, started_at, finished_at)
      select ${room.id}::text || '-run-' || n, ${room.id}::text, ${agentId}::text, 'succeeded', 'human', 'bench', 'Bench', ${room.id}::text || '-wf-' || n, 5, 1, now(), now(), now()
      from generate_series(1, 20) as n`);
    await database.db.execute(sql`
      insert into events (id, room_id, seq, correlation_id, agent, agent_name, type, status, payload)
      select ${room.id}::text || '-ev-' || n, ${room.id}::text, n + 1, ${room.id}::text || '-wf-' || (1 + n % 20), ${agentId}::text, 'Bench', 'run.step', 'success',
             jsonb_build_object('runId', ${room.id}::text || '-run-' || (1 + n % 20), 'agentId', ${agentId}::text, 'step', n, 'text', 'A line of work', 'toolCalls', '[]'::jsonb, 'toolResults', '[]'::jsonb, 'durationMs', 10, 'inputTokens', 100, 'outputTokens', 10, 'costUsd', 0)
      from generate_series(1, ${perRoom}::int) as n`);
    await database.db.execute(sql`update rooms set last_seq = ${perRoom + 1} where id = ${room.id}`);
    picked.push({ roomId: room.id, correlationId: `${room.id}-wf-${1 + (index % 20)}` });
  }
  await database.db.execute(sql`analyze`);
  // Each workflow read once first, as on a running server: the pool's connections prepare their statements.
  for (const { roomId, correlationId } of picked) await readWorkflow(database.db, roomId, correlationId);
  const times: number[] = [];
  for (let index = 0; index < samples; index++) {
    const { roomId, correlationId } = picked[index % picked.length]!;
    const started = performance.now();
    const workflow = await readWorkflow(database.db, roomId, correlationId);
    times.push(performance.now() - started);
    if (workflow.messages.length !== perRoom / 20) throw new Error(`Expected ${perRoom / 20} messages, read ${workflow.messages.length}.`);
  }
  times.sort((a, b) => a - b);
  return { events: rooms * perRoom, p50: round(percentile(times, 50), 2), p99: round(percentile(times, 99), 2) };
}

/** The line saying how a run fared beside runs waiting between retries, with its verdict. */
function neighbourLine(figures: Awaited<ReturnType<typeof retryNeighbour>>): string {
  return (
    `A run beside runs waiting between retries (provider answering 503): ${figures.beside_retries_ms_per_step} ms a step, ` +
    `alone ${figures.alone_ms_per_step} ms — ratio ${figures.ratio} (target ≤ ${RETRY_NEIGHBOUR_TARGET.toFixed(2)}: ${verdict(figures.ratio <= RETRY_NEIGHBOUR_TARGET)}).\n`
  );
}

/** The line giving the workflow lookup's figures, with its verdict. */
function lookupLine(figures: Awaited<ReturnType<typeof workflowLookup>>): string {
  return (
    `Workflow lookup (GET /api/rooms/:id/workflows/:correlationId's read) among ${figures.events.toLocaleString("en-US")} events in 100 rooms on PostgreSQL: ` +
    `p50 ${figures.p50} ms, p99 ${figures.p99} ms (target p99 ≤ ${LOOKUP_TARGET_MS} ms: ${verdict(figures.p99 <= LOOKUP_TARGET_MS)}).\n`
  );
}

// One part alone, on a fresh PostgreSQL database: the run beside retries, or the workflow lookup.
if (options.only === "retries" || options.only === "lookup") {
  const alone = await freshPostgres();
  if (!alone) {
    console.log(`No local PostgreSQL server answered: --only=${options.only} is measured on PostgreSQL only.`);
    process.exit(1);
  }
  const postgres = await openPostgres({ url: alone.url, max: 12 });
  try {
    await migrateDatabase(postgres);
    if (options.only === "retries") {
      const figures = await retryNeighbour(postgres);
      console.log(`\n${neighbourLine(figures)}`);
      console.log(JSON.stringify({ retry_neighbour_ratio: figures.ratio, ...figures }));
    } else {
      const figures = await workflowLookup(postgres);
      console.log(`\n${lookupLine(figures)}`);
      console.log(JSON.stringify({ workflow_lookup_p50_ms: figures.p50, workflow_lookup_p99_ms: figures.p99 }));
    }
  } finally {
    await postgres.close();
    await alone.drop();
  }
  process.exit(0);
}

const results: Figures[] = [];
let lookup: Awaited<ReturnType<typeof workflowLookup>> | null = null;
let neighbour: Awaited<ReturnType<typeof retryNeighbour>> | null = null;
const pglite = await openPglite();
results.push(await measureDriver("pglite", pglite));
await pglite.close();

const server = await freshPostgres();
let floor: Awaited<ReturnType<typeof withoutParley>> | null = null;
if (server) {
  const postgres = await openPostgres({ url: server.url, max: 12 });
  try {
    results.push(await measureDriver("postgres", postgres));
    lookup = await workflowLookup(postgres);
    neighbour = await retryNeighbour(postgres);
    const committing = await committingStore(server.url);
    try {
      await withoutParley(WARMUP_RUNS, committing.store);
      floor = await withoutParley(results[0]!.runs, committing.store);
    } finally {
      await committing.close();
    }
  } finally {
    await postgres.close();
    await server.drop();
  }
} else {
  console.log("No local PostgreSQL server answered; measured PGlite only.");
}
const baseline = await withoutParley(results[0]!.runs);

console.log(`\nAgent runs through the queue, scripted model at full speed.`);
console.log(`Throughput: ${ROOMS} rooms × 5 agents (plus the runs they request), ${WORKERS} workers in one process.`);
console.log(`Overhead per step: ${SOLO_ROOMS} rooms, one run at a time (and, for comparison, under that load).\n`);
console.log("driver     runs/min  overhead ms/step  model ms/step  overhead under load  runs  steps");
for (const row of results) {
  console.log(
    `${row.driver.padEnd(9)} ${String(row.runs_per_minute).padStart(9)} ${String(row.overhead_ms_per_step).padStart(17)} ${String(row.model_ms_per_step).padStart(14)} ${String(row.loaded_overhead_ms_per_step).padStart(20)} ${String(row.runs).padStart(5)} ${String(row.steps).padStart(6)}`,
  );
}
console.log(
  `in memory ${String(baseline.runs_per_minute).padStart(9)} ${String(baseline.overhead_ms_per_step).padStart(17)} ${String(round(baseline.ms_per_step - baseline.overhead_ms_per_step, 3)).padStart(14)}   (the same persona runs with echo tools: no queue, no database; its overhead is the SDK's loop)`,
);
if (floor) {
  console.log(
    `floor     ${String(floor.runs_per_minute).padStart(9)} ${String(floor.overhead_ms_per_step).padStart(17)} ${String(round(floor.ms_per_step - floor.overhead_ms_per_step, 3)).padStart(14)}   (the same, each tool call and each step kept as one row with one commit on PostgreSQL)`,
  );
}
console.log(
  `Tool calls per step: ${results.map((row) => `${row.driver} ${row.tool_calls_per_step}`).join(", ")}, in memory ${baseline.tool_calls_per_step}` +
    (floor ? `, floor ${floor.tool_calls_per_step}.` : "."),
);
console.log("\nOverhead is the time a run spends outside the model: tools writing rows and events, the queue, the bus.");
const measured = results.find((row) => row.driver === "postgres") ?? results[0]!;
console.log(
  `Overhead per step on ${measured.driver}: ${measured.overhead_ms_per_step} ms (target ≤ ${OVERHEAD_TARGET_MS} ms: ${verdict(measured.overhead_ms_per_step <= OVERHEAD_TARGET_MS)})` +
    (floor
      ? `; ${round(measured.overhead_ms_per_step / floor.overhead_ms_per_step, 2)}× the committing floor's ${floor.overhead_ms_per_step} ms.\n`
      : ".\n"),
);
console.log(`Participants' messages (${COMMANDS} each way): to a running agent → its next model call; to an idle agent → its run started.`);
console.log("driver     to model p50/p99 ms   one step p50/p99 ms   to start p50/p99 ms");
for (const row of results) {
  console.log(
    `${row.driver.padEnd(9)} ${`${row.command_to_model_p50_ms} / ${row.command_to_model_p99_ms}`.padStart(20)} ${`${row.step_p50_ms} / ${row.step_p99_ms}`.padStart(21)} ${`${row.command_to_start_p50_ms} / ${row.command_to_start_p99_ms}`.padStart(21)}`,
  );
}
for (const row of results) {
  console.log(
    `To a running agent on ${row.driver}: p99 ${row.command_to_model_p99_ms} ms beside a step's p50 ${row.step_p50_ms} ms; ` +
      `${row.command_to_model_within_step} of ${COMMANDS} read in its next model call (target within one step: ${verdict(row.command_to_model_within_step === COMMANDS)}).`,
  );
  console.log(
    `To an idle agent on ${row.driver}: run started p99 ${row.command_to_start_p99_ms} ms (target ≤ ${COMMAND_TO_START_TARGET_MS} ms: ${verdict(row.command_to_start_p99_ms <= COMMAND_TO_START_TARGET_MS)}).`,
  );
}
console.log("");
if (lookup) console.log(lookupLine(lookup));
if (neighbour) console.log(neighbourLine(neighbour));
const primary = results.find((row) => row.driver === "postgres") ?? results[0]!;
console.log(
  JSON.stringify({
    ...primary,
    ...(lookup ? { workflow_lookup_p50_ms: lookup.p50, workflow_lookup_p99_ms: lookup.p99 } : {}),
    ...(neighbour ? { retry_neighbour_ratio: neighbour.ratio } : {}),
    baseline_runs_per_minute: baseline.runs_per_minute,
    baseline_ms_per_step: baseline.ms_per_step,
    baseline_overhead_ms_per_step: baseline.overhead_ms_per_step,
    ...(floor
      ? {
          floor_overhead_ms_per_step: floor.overhead_ms_per_step,
          overhead_floor_ratio: round(primary.overhead_ms_per_step / floor.overhead_ms_per_step, 2),
        }
      : {}),
    otel_export: BENCH_OTEL,
    results,
  }),
);
process.exit(0);
