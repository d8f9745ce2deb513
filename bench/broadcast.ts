// ask_others wall time with 1, 2, 4 and 8 shadow responders of fixed latency, against the
// slowest single responder and against asking the same responders one after another.
// Usage: npm run bench:broadcast [-- --latency=300 --repeat=5]
import { eq } from "drizzle-orm";
import { migrateDatabase, openPglite } from "@/db/client";
import { agents as agentsTable } from "@/db/schema";
import { askOthers } from "@/lib/broadcast/ask-others";
import { createScriptModel } from "@/lib/models/script/script-model";
import type { ResolvedModel } from "@/lib/models/registry";
import { RoomBus } from "@/lib/realtime/bus";
import { createRoom } from "@/lib/rooms/create-room";
import type { PersonaTemplate } from "@/lib/rooms/templates";

const args = Object.fromEntries(
  process.argv.slice(2).map((arg) => {
    const [key, value] = arg.replace(/^--/, "").split("=");
    return [key, Number(value)];
  }),
);
const LATENCY_MS = args.latency || 300;
const REPEAT = args.repeat || 5;
const COUNTS = [1, 2, 4, 8];

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const database = await openPglite();
await migrateDatabase(database);
const bus = new RoomBus(database);
await bus.start();

const personas: PersonaTemplate[] = Array.from({ length: 9 }, (_, index) => ({
  persona: index === 0 ? "asker" : `responder-${index}`,
  name: index === 0 ? "Asker" : `Responder ${index}`,
  role: "Bench agent",
  description: "Answers with a fixed latency.",
  color: "#4c6ef5",
  model: `script:songwriter`,
  systemPrompt: "",
}));
const { room, agents } = await createRoom(
  database.db,
  { title: "Broadcast benchmark", template: "imported" },
  { agents: personas, settings: { broadcast: "agents", broadcast_timeout: 60, max_broadcasts_per_agent: 100 } },
);
const byName = new Map(agents.map((agent) => [agent.name, agent]));
const [askerAgent] = await database.db
  .select()
  .from(agentsTable)
  .where(eq(agentsTable.id, byName.get("Asker")!.id));

const resolve = (): ResolvedModel => ({
  model: createScriptModel({ name: "songwriter", latencyMs: LATENCY_MS }),
  provider: "script",
  modelId: "bench",
  spec: "script:bench",
  scripted: true,
});
const deps = { database, bus, resolveModel: resolve };
const ask = async (targets: string[]) => {
  const started = performance.now();
  const result = await askOthers(deps, {
    roomId: room.id,
    asker: askerAgent!,
    runId: null,
    correlationId: "bench",
    question: "Rain or streetlights?",
    targetAgents: targets,
  });
  if (result.status !== "complete" || result.responses.length !== targets.length) {
    throw new Error(`Broadcast did not complete: ${JSON.stringify(result).slice(0, 200)}`);
  }
  return performance.now() - started;
};

await ask(["Responder 1"]);
const singles: number[] = [];
for (let index = 0; index < REPEAT; index++) {
  for (let responder = 1; responder <= 8; responder++) singles.push(await ask([`Responder ${responder}`]));
}
const slowestSingle = median(singles.sort((a, b) => b - a).slice(0, REPEAT));

const results = [];
for (const count of COUNTS) {
  const targets = Array.from({ length: count }, (_, index) => `Responder ${index + 1}`);
  const parallel: number[] = [];
  const sequential: number[] = [];
  for (let index = 0; index < REPEAT; index++) {
    parallel.push(await ask(targets));
    let total = 0;
    for (const target of targets) total += await ask([target]);
    sequential.push(total);
  }
  const parallelMs = median(parallel);
  results.push({
    responders: count,
    latency_ms: LATENCY_MS,
    parallel_ms: Math.round(parallelMs * 10) / 10,
    sequential_ms: Math.round(median(sequential) * 10) / 10,
    slowest_single_ms: Math.round(slowestSingle * 10) / 10,
    ratio_vs_slowest: Math.round((parallelMs / slowestSingle) * 1000) / 1000,
  });
}

console.log(`\nask_others wall time, responders answering after ${LATENCY_MS} ms each (median of ${REPEAT}, PGlite)\n`);
console.log("responders  parallel ms  sequential ms  slowest single ms  parallel / slowest");
for (const row of results) {
  console.log(
    `${String(row.responders).padStart(10)}  ${row.parallel_ms.toFixed(1).padStart(11)}  ${row.sequential_ms.toFixed(1).padStart(13)}  ${row.slowest_single_ms.toFixed(1).padStart(17)}  ${row.ratio_vs_slowest.toFixed(3).padStart(18)}`,
  );
}
const met = results.every((row) => row.ratio_vs_slowest <= 1.1);
console.log(`\nTarget: at most 1.1× the slowest single responder — ${met ? "met" : "NOT met"}.\n`);
console.log(JSON.stringify({ driver: "pglite", target_ratio: 1.1, met, results }));
await bus.stop();
await database.close();
process.exit(0);
