// The whole brainstorm on the offline model, through the real queue, worker, tools and
// database, on PGlite and on PostgreSQL: how long the process takes, how much of that some
// model call was under way, and how much was Parley's own orchestration (queueing, claiming,
// prompts, tools, writes, moving stages on). The gate is approved the moment it opens; the
// time it waits is not counted. Ends with one line of JSON.
// Usage: npm run bench:brainstorm [-- --think=250 --problem="How might we …"]
// The workflow templates register what they add to the agent engine.
import "@/lib/workflows";
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { eq } from "drizzle-orm";
import { type Database, migrateDatabase, openPglite, openPostgres } from "@/db/client";
import { type Brainstorm, brainstorms } from "@/db/schema";
import { AgentWorker } from "@/lib/agents/worker";
import { decideGate } from "@/lib/brainstorm/decide-gate";
import { startBrainstorm } from "@/lib/brainstorm/start-brainstorm";
import type { ResolvedModel } from "@/lib/models/registry";
import { createScriptModel } from "@/lib/models/script/script-model";
import { BRAINSTORM_STAGES, type StageKey } from "@/lib/protocol/brainstorm";
import { RoomBus } from "@/lib/realtime/bus";
import { createRoom } from "@/lib/rooms/create-room";
import { freshPostgres } from "./support/local-postgres";
import { args, round } from "./support/stats";
import { timedModel } from "./support/timed-model";

const options = args();
/** How long each scripted model call thinks before answering, standing in for a fast real model. */
const THINK_MS = Number(options.think ?? 250);
const PROBLEM = options.problem ?? "How might we cut onboarding time for new engineers?";
const TARGET_SHARE = 0.2;

const stageOf = new Map(BRAINSTORM_STAGES.flatMap((stage) => stage.personas.map((persona) => [persona, stage.key] as const)));

interface Interval {
  stage: StageKey;
  start: number;
  end: number;
}

/** Records when every model call of a persona starts and when its stream ends. */
function timed(inner: LanguageModelV4, stage: StageKey, calls: Interval[]): LanguageModelV4 {
  return timedModel(inner, (start, end) => void calls.push({ stage, start, end }));
}

/** The time covered by at least one interval, within [from, to]. */
function covered(intervals: { start: number; end: number }[], from = -Infinity, to = Infinity): number {
  const clipped = intervals
    .map((interval) => ({ start: Math.max(interval.start, from), end: Math.min(interval.end, to) }))
    .filter((interval) => interval.end > interval.start)
    .sort((a, b) => a.start - b.start);
  let total = 0;
  let reach = -Infinity;
  for (const interval of clipped) {
    if (interval.end <= reach) continue;
    total += interval.end - Math.max(interval.start, reach);
    reach = interval.end;
  }
  return total;
}

async function waitFor(database: Database, id: string, status: Brainstorm["status"]): Promise<Brainstorm> {
  for (;;) {
    const [row] = await database.db.select().from(brainstorms).where(eq(brainstorms.id, id));
    if (row?.status === status) return row;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

async function measure(label: string, database: Database) {
  const calls: Interval[] = [];
  const resolve = (spec: string): ResolvedModel => {
    const persona = spec.replace(/^script:/, "");
    return {
      model: timed(createScriptModel({ name: persona, paceMs: 0, latencyMs: THINK_MS }), stageOf.get(persona) ?? "framing", calls),
      provider: "script",
      modelId: spec,
      spec,
      scripted: true,
    };
  };
  const { room } = await createRoom(database.db, { title: "Bench brainstorm", template: "brainstorm" });
  const bus = new RoomBus(database);
  await bus.start();
  const worker = new AgentWorker(database, bus, { owner: `bench-brainstorm-${label}`, resolveModel: resolve, maxParallel: 4, pollMs: 20 });
  await worker.start();
  try {
    const started = performance.now();
    const dto = await startBrainstorm(database.db, room.id, PROBLEM, { id: "bench", name: "Bench" });
    const atGate = await waitFor(database, dto.id, "awaiting_gate");
    const gateOpened = performance.now();
    await decideGate(database.db, room.id, dto.id, { action: "approve", round: atGate.gateRound }, { id: "bench", name: "Bench" });
    const gateClosed = performance.now();
    const done = await waitFor(database, dto.id, "complete");
    const ended = performance.now();
    const wall = ended - started - (gateClosed - gateOpened);
    const model = covered(calls, started, gateOpened) + covered(calls, gateClosed, ended);
    const stages = Object.fromEntries(
      BRAINSTORM_STAGES.filter((stage) => stage.key !== "gate").map((stage) => {
        const state = done.stages[stage.key];
        const stageCalls = calls.filter((call) => call.stage === stage.key);
        const span = state.startedAt && state.endedAt ? Date.parse(state.endedAt) - Date.parse(state.startedAt) : 0;
        const stageModel = covered(stageCalls);
        return [
          stage.key,
          {
            status: state.status,
            passes: state.passes,
            count: state.count,
            calls: stageCalls.length,
            wall_ms: round(span, 1),
            model_ms: round(stageModel, 1),
          },
        ];
      }),
    );
    return {
      wall_ms: round(wall, 1),
      model_ms: round(model, 1),
      overhead_ms: round(wall - model, 1),
      overhead_share: round((wall - model) / wall, 3),
      model_calls: calls.length,
      stages,
    };
  } finally {
    await worker.stop();
    await bus.stop();
  }
}

async function main() {
  console.log(`Brainstorm on the offline model, each call thinking ${THINK_MS} ms: "${PROBLEM}"`);
  const results: Record<string, Awaited<ReturnType<typeof measure>>> = {};

  const pglite = await openPglite();
  await migrateDatabase(pglite);
  results.pglite = await measure("pglite", pglite);
  await pglite.close();

  const server = await freshPostgres();
  if (server) {
    const postgres = await openPostgres({ url: server.url });
    try {
      await migrateDatabase(postgres);
      results.postgres = await measure("postgres", postgres);
    } finally {
      await postgres.close();
      await server.drop();
    }
  } else {
    console.log("No local PostgreSQL server answered: PGlite only.");
  }

  for (const [driver, result] of Object.entries(results)) {
    console.log(
      `\n${driver}: ${result.wall_ms} ms in all, a model call under way for ${result.model_ms} ms, orchestration alone ${result.overhead_ms} ms (${round(result.overhead_share * 100, 1)}%; target under ${TARGET_SHARE * 100}%: ${result.overhead_share < TARGET_SHARE ? "met" : "not met"}), ${result.model_calls} model calls`,
    );
    for (const [stage, figures] of Object.entries(result.stages)) {
      console.log(
        `  ${stage.padEnd(15)} ${figures.status.padEnd(8)} ${String(figures.wall_ms).padStart(8)} ms, model ${String(figures.model_ms).padStart(8)} ms, ${figures.calls} calls`,
      );
    }
  }
  const primary = results.postgres ?? results.pglite!;
  console.log(
    JSON.stringify({
      think_ms: THINK_MS,
      wall_ms: primary.wall_ms,
      model_ms: primary.model_ms,
      overhead_ms: primary.overhead_ms,
      overhead_share: primary.overhead_share,
      stages: primary.stages,
      drivers: Object.fromEntries(
        Object.entries(results).map(([driver, result]) => [
          driver,
          { wall_ms: result.wall_ms, model_ms: result.model_ms, overhead_ms: result.overhead_ms, overhead_share: result.overhead_share },
        ]),
      ),
    }),
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
