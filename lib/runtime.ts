// The workflow templates register what they add to the agent engine.
import "@/lib/workflows";
import { randomUUID } from "node:crypto";
import { type Database, getDatabase } from "@/db";
import { getEnv } from "@/lib/env";
import { AgentWorker } from "@/lib/agents/worker";
import { Scheduler } from "@/lib/agents/scheduler";
import { resolveModel } from "@/lib/models/registry";
import { RoomBus } from "@/lib/realtime/bus";
import { PresenceTracker } from "@/lib/realtime/presence";
import { SeatCache } from "@/lib/auth/seat-cache";

/** The long-lived parts of one app instance, shared by every route in the process. */
export interface Runtime {
  instanceId: string;
  database: Database;
  bus: RoomBus;
  presence: PresenceTracker;
  /** Seats looked up recently, so participants' writes skip the lookup. */
  seats: SeatCache;
  /** Executes queued agent runs; absent when this instance only serves pages (`PARLEY_WORKER=0`). */
  worker: AgentWorker | null;
  scheduler: Scheduler | null;
}

const globalForRuntime = globalThis as unknown as { __parleyRuntime?: Promise<Runtime> };

async function startRuntime(): Promise<Runtime> {
  const database = await getDatabase();
  const instanceId = getEnv().PARLEY_INSTANCE_ID ?? randomUUID();
  const bus = new RoomBus(database);
  await bus.start();
  const presence = new PresenceTracker(database, bus, { instanceId });
  await presence.start();
  let worker: AgentWorker | null = null;
  let scheduler: Scheduler | null = null;
  if (getEnv().PARLEY_WORKER) {
    const logError = (error: unknown) => console.error("[parley] agent worker:", error);
    worker = new AgentWorker(database, bus, {
      owner: `${instanceId}:worker`,
      resolveModel: (spec, agent) => resolveModel(spec, { agent }),
      execute: { modelCallTimeoutMs: getEnv().PARLEY_MODEL_TIMEOUT_SECONDS * 1000 },
      leaseMs: getEnv().PARLEY_RUN_LEASE_SECONDS * 1000,
      onError: logError,
    });
    await worker.start();
    scheduler = new Scheduler(database, { owner: instanceId, onError: logError });
    scheduler.start();
  }
  return { instanceId, database, bus, presence, seats: new SeatCache(), worker, scheduler };
}

/** Starts this instance's runtime once (database, bus, presence) and returns it. */
export function getRuntime(): Promise<Runtime> {
  if (!globalForRuntime.__parleyRuntime) {
    globalForRuntime.__parleyRuntime = startRuntime().catch((error) => {
      globalForRuntime.__parleyRuntime = undefined;
      throw error;
    });
  }
  return globalForRuntime.__parleyRuntime;
}

/** Installs a runtime built elsewhere (tests). */
export function setRuntime(runtime: Runtime | undefined): void {
  globalForRuntime.__parleyRuntime = runtime ? Promise.resolve(runtime) : undefined;
}
