import fs from "node:fs/promises";
import path from "node:path";
import { and, asc, eq, gt, isNotNull, sql } from "drizzle-orm";
import type { Database } from "@/db";
import { migrationsFolder } from "@/db/client";
import { rowsOf } from "@/db/rows";
import { agents, leases, presence, rooms, runs } from "@/db/schema";
import { listLiveWorkers } from "@/lib/agents/worker-registry";
import { getEnv } from "@/lib/env";
import { type InstanceBudgets, readInstanceBudgets } from "@/lib/limits/instance-budgets";
import { PROVIDERS, type ProviderName, modelUnavailableReason } from "@/lib/models/registry";
import { parseRoomSettings } from "@/lib/rooms/room-settings";
import type { Runtime } from "@/lib/runtime";

/**
 * How often the scheduler's holder ticks, and how long each tick's lease lasts: the Scheduler's
 * defaults, which every instance runs with. The lease's expiry tells when it was last renewed.
 */
const SCHEDULER_TICK_MS = 1000;
const SCHEDULER_LEASE_MS = 5000;
/** A live connection not refreshed for this long is not counted (as `countPresence`). */
const PRESENCE_STALE_MS = 45_000;

export interface InstanceStatus {
  generatedAt: string;
  /** The instance that answered. */
  instance: { id: string; worker: boolean; runsHere: number; schedulerHere: boolean; uptimeSeconds: number; node: string };
  database: {
    driver: Database["driver"];
    version: string;
    migrations: { applied: number; available: number; latest: string | null; pending: string[] };
  };
  scheduler: {
    /** Who holds the lease, and until when; null when no instance ever took it. */
    holder: string | null;
    leaseExpiresAt: string | null;
    /** False once the lease lapsed: the next instance to tick takes it. */
    held: boolean;
    lastTickAt: string | null;
    nextTickAt: string | null;
    /** Rooms with the scheduler on, and the next one due to start an agent. */
    rooms: number;
    nextTurn: { roomId: string; title: string; at: string; waitingForViewers: boolean } | null;
  };
  /**
   * Every live worker, idle ones too, with when it started and was last heard from, and the runs
   * it holds; a worker no longer heard from is listed while it still holds a run's lease, with
   * `lastHeartbeatAt` null.
   */
  workers: {
    owner: string;
    instanceId: string;
    startedAt: string | null;
    lastHeartbeatAt: string | null;
    runs: { id: string; roomId: string; roomTitle: string; agentName: string; startedAt: string | null; leaseExpiresAt: string | null }[];
  }[];
  /** Instances seen lately: serving viewers, holding runs or the scheduler. */
  instances: { id: string; viewers: number; runs: number; scheduler: boolean }[];
  providers: { provider: ProviderName; configured: boolean; reason: string | null }[];
  /** The server's daily budgets: as set from the dashboard, the environment's values, and what applies. */
  budgets: InstanceBudgets;
}

/** A worker's name (`<instance>:worker`) → its instance. */
function instanceOfWorker(owner: string): string {
  return owner.endsWith(":worker") ? owner.slice(0, -":worker".length) : owner;
}

/** `<instance>:worker:<claim>` → the worker's name (`<instance>:worker`) and its instance. */
function workerOf(leaseOwner: string): { owner: string; instanceId: string } {
  const owner = leaseOwner.includes(":") ? leaseOwner.slice(0, leaseOwner.lastIndexOf(":")) : leaseOwner;
  return { owner, instanceId: instanceOfWorker(owner) };
}

async function migrationLevel(database: Database) {
  const journal = JSON.parse(await fs.readFile(path.join(migrationsFolder, "meta", "_journal.json"), "utf8")) as {
    entries: { tag: string; when: number }[];
  };
  const applied = rowsOf<{ created_at: string | number }>(
    await database.db.execute(sql`select created_at from drizzle.__drizzle_migrations order by created_at`),
  ).map((row) => Number(row.created_at));
  const last = applied.at(-1) ?? 0;
  const latest = journal.entries.filter((entry) => entry.when <= last).at(-1)?.tag ?? null;
  return {
    applied: applied.length,
    available: journal.entries.length,
    latest,
    pending: journal.entries.filter((entry) => entry.when > last).map((entry) => entry.tag),
  };
}

/** Where the instance stands: the scheduler, every live worker and its runs, the database and its migrations, the providers. */
export async function readInstance(runtime: Runtime, now: Date = new Date()): Promise<InstanceStatus> {
  const db = runtime.database.db;
  const [[lease], live, held, scheduled, viewers, migrations, [version], budgets] = await Promise.all([
    db.select().from(leases).where(eq(leases.name, "scheduler")),
    listLiveWorkers(db),
    db
      .select({
        id: runs.id,
        roomId: runs.roomId,
        roomTitle: rooms.title,
        agentName: agents.name,
        leaseOwner: runs.leaseOwner,
        startedAt: runs.startedAt,
        leaseExpiresAt: runs.leaseExpiresAt,
      })
      .from(runs)
      .innerJoin(rooms, eq(rooms.id, runs.roomId))
      .innerJoin(agents, eq(agents.id, runs.agentId))
      .where(and(eq(runs.status, "running"), isNotNull(runs.leaseOwner)))
      .orderBy(asc(runs.startedAt)),
    db
      .select({ id: rooms.id, title: rooms.title, settings: rooms.settings, lastScheduledAt: rooms.lastScheduledAt })
      .from(rooms)
      .where(sql`(${rooms.settings}->>'scheduler_enabled')::boolean is true`),
    db
      .select({ instanceId: presence.instanceId, roomId: presence.roomId, viewers: sql<number>`count(*)::int` })
      .from(presence)
      .where(gt(presence.lastSeenAt, new Date(now.getTime() - PRESENCE_STALE_MS)))
      .groupBy(presence.instanceId, presence.roomId),
    migrationLevel(runtime.database),
    db.execute(sql`select current_setting('server_version') as version`).then((result) => rowsOf<{ version: string }>(result)),
    readInstanceBudgets(db),
  ]);

  const workers = new Map<string, InstanceStatus["workers"][number]>();
  for (const worker of live) {
    workers.set(worker.name, {
      owner: worker.name,
      instanceId: instanceOfWorker(worker.name),
      startedAt: worker.startedAt.toISOString(),
      lastHeartbeatAt: worker.lastSeenAt.toISOString(),
      runs: [],
    });
  }
  for (const run of held) {
    const { owner, instanceId } = workerOf(run.leaseOwner!);
    const worker = workers.get(owner) ?? { owner, instanceId, startedAt: null, lastHeartbeatAt: null, runs: [] };
    worker.runs.push({
      id: run.id,
      roomId: run.roomId,
      roomTitle: run.roomTitle,
      agentName: run.agentName,
      startedAt: run.startedAt?.toISOString() ?? null,
      leaseExpiresAt: run.leaseExpiresAt?.toISOString() ?? null,
    });
    workers.set(owner, worker);
  }

  const watched = new Set(viewers.map((row) => row.roomId));
  let nextTurn: InstanceStatus["scheduler"]["nextTurn"] = null;
  for (const room of scheduled) {
    const settings = parseRoomSettings(room.settings);
    const due = room.lastScheduledAt ? room.lastScheduledAt.getTime() + settings.scheduler_interval_seconds * 1000 : now.getTime();
    const at = Math.max(due, now.getTime());
    if (!nextTurn || at < Date.parse(nextTurn.at)) {
      nextTurn = {
        roomId: room.id,
        title: room.title,
        at: new Date(at).toISOString(),
        waitingForViewers: settings.scheduler_needs_viewers && !watched.has(room.id),
      };
    }
  }

  const env = getEnv();
  const leaseHeld = !!lease && lease.expiresAt.getTime() > now.getTime();
  const lastTick = lease ? lease.expiresAt.getTime() - SCHEDULER_LEASE_MS : null;
  const instances = new Map<string, InstanceStatus["instances"][number]>();
  const seen = (id: string) => {
    const entry = instances.get(id) ?? { id, viewers: 0, runs: 0, scheduler: false };
    instances.set(id, entry);
    return entry;
  };
  seen(runtime.instanceId);
  for (const row of viewers) seen(row.instanceId).viewers += Number(row.viewers);
  for (const worker of workers.values()) seen(worker.instanceId).runs += worker.runs.length;
  if (lease && leaseHeld) seen(lease.owner).scheduler = true;

  return {
    generatedAt: now.toISOString(),
    instance: {
      id: runtime.instanceId,
      worker: runtime.worker !== null,
      runsHere: runtime.worker?.activeRunIds().length ?? 0,
      schedulerHere: leaseHeld && lease!.owner === runtime.instanceId,
      uptimeSeconds: Math.round(process.uptime()),
      node: process.version,
    },
    database: { driver: runtime.database.driver, version: version?.version ?? "unknown", migrations },
    scheduler: {
      holder: lease?.owner ?? null,
      leaseExpiresAt: lease?.expiresAt.toISOString() ?? null,
      held: leaseHeld,
      lastTickAt: lastTick === null ? null : new Date(lastTick).toISOString(),
      nextTickAt: leaseHeld && lastTick !== null ? new Date(Math.max(lastTick + SCHEDULER_TICK_MS, now.getTime())).toISOString() : null,
      rooms: scheduled.length,
      nextTurn,
    },
    workers: [...workers.values()],
    instances: [...instances.values()].sort((a, b) => a.id.localeCompare(b.id)),
    providers: PROVIDERS.map((provider) => {
      const reason = modelUnavailableReason(`${provider}:any`, env);
      return { provider, configured: reason === null, reason };
    }),
    budgets,
  };
}
