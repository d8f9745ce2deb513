// The workflow templates register what they add to the agent engine.
import "@/lib/workflows";
import { eq } from "drizzle-orm";
import type { Database } from "@/db";
import { agents } from "@/db/schema";
import { AgentWorker, type WorkerOptions } from "@/lib/agents/worker";
import { resolveModel } from "@/lib/models/registry";
import { RoomBus } from "@/lib/realtime/bus";

let workerCount = 0;

/** A worker on the test database with the offline model streaming at full speed. */
export async function startTestWorker(database: Database, options: Partial<WorkerOptions> = {}) {
  workerCount += 1;
  const bus = new RoomBus(database);
  await bus.start();
  const worker = new AgentWorker(database, bus, {
    owner: `test-worker-${workerCount}`,
    resolveModel: (spec) => resolveModel(spec, { scriptPaceMs: 0 }),
    pollMs: 50,
    leaseMs: 5000,
    execute: { typingFlushMs: 10 },
    onError: (error) => console.error("[test worker]", error),
    ...options,
  });
  await worker.start();
  return {
    worker,
    bus,
    async stop() {
      await worker.stop();
      await bus.stop();
    },
  };
}

export async function agentByPersona(database: Database, roomId: string, persona: string) {
  const rows = await database.db.select().from(agents).where(eq(agents.roomId, roomId));
  const agent = rows.find((row) => row.persona === persona);
  if (!agent) throw new Error(`No ${persona} in room ${roomId}`);
  return agent;
}
