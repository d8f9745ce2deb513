import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db";
import { runs } from "@/db/schema";
import { alice, createTestRoom, eventually } from "@/test/fixtures";
import { startTestWorker } from "@/test/agents";
import { type TestDatabase, createTestDatabase } from "@/test/test-database";
import { RUNS_CHANNEL } from "./enqueue-run";
import { resolveModel } from "@/lib/models/registry";
import { cancelRun } from "./cancel-run";
import { startAgentRun } from "./start-agent-run";

// The worker claims any room's runs, so this file keeps a database of its own.
let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.destroy());

/**
 * The database as the worker sees it, with the first transaction whose result `holds` picks
 * held after it has committed until `release()`: the claim it made is then still out.
 */
function holdingOneTransaction(source: Database, holds: (result: unknown) => boolean) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let held!: () => void;
  const holding = new Promise<void>((resolve) => (held = resolve));
  let holdsLeft = 1;
  const db = new Proxy(source.db, {
    get(target, property) {
      if (property === "transaction") {
        return async (...args: Parameters<typeof target.transaction>) => {
          const result = await target.transaction(...args);
          if (holdsLeft > 0 && holds(result)) {
            holdsLeft -= 1;
            held();
            await released;
          }
          return result;
        };
      }
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { db, holding, release };
}

/**
 * The worker's first claim (which finds nothing) held until `release()`; `notified` resolves
 * once the worker has been handed a notification of a queued run.
 */
function holdingFirstClaim(source: Database) {
  let heard!: () => void;
  const notified = new Promise<void>((resolve) => (heard = resolve));
  const listen: Database["listen"] = (channel, onMessage, onListen) =>
    source.listen(
      channel,
      (payload) => {
        onMessage(payload);
        if (channel === RUNS_CHANNEL) heard();
      },
      onListen,
    );
  const { db, holding, release } = holdingOneTransaction(source, () => true);
  return { database: { ...source, db, listen } as Database, holding, notified, release };
}

/** The worker's first claim that takes a run held until `release()`, the run already running. */
function holdingFirstRunClaimed(source: Database) {
  const { db, holding, release } = holdingOneTransaction(source, (result) => !!result);
  return { database: { ...source, db } as Database, holding, release };
}

describe("the agent worker", () => {
  it("hands back a run its claim took while the worker was stopping, rather than start it", async () => {
    const { roomId, agents } = await createTestRoom(database.db);
    const claiming = holdingFirstRunClaimed(database);
    let modelsAsked = 0;
    const worker = await startTestWorker(claiming.database, {
      resolveModel: (spec) => {
        modelsAsked += 1;
        return resolveModel(spec, { scriptPaceMs: 0 });
      },
    });
    const run = await startAgentRun(database.db, roomId, { agentId: agents[0]!.id }, alice);
    try {
      await claiming.holding;
      // Told to stop while its claim of the run is still out.
      const stopping = worker.stop();
      claiming.release();
      await stopping;
      const [row] = await database.db.select().from(runs).where(eq(runs.id, run.id));
      expect(row).toMatchObject({ status: "queued", leaseOwner: null, leaseExpiresAt: null });
      expect(worker.worker.activeRunIds()).toEqual([]);
      expect(modelsAsked).toBe(0);
    } finally {
      claiming.release();
      await worker.stop();
      await cancelRun(database.db, roomId, run.id, alice);
    }
  });

  it("claims a run it was told about while it was claiming, without waiting for its next poll", async () => {
    const { roomId, agents } = await createTestRoom(database.db);
    const claiming = holdingFirstClaim(database);
    // A poll far longer than the test may take: only the notification can start the run in time.
    const worker = await startTestWorker(claiming.database, { pollMs: 60_000 });
    try {
      await claiming.holding;
      const run = await startAgentRun(database.db, roomId, { agentId: agents[0]!.id }, alice);
      // The run's notification reaches the worker while its claim is still out.
      await claiming.notified;
      claiming.release();
      // Well within the minute-long poll, with room for a slow machine.
      await eventually(async () => {
        const [row] = await database.db.select({ status: runs.status }).from(runs).where(eq(runs.id, run.id));
        expect(row!.status).not.toBe("queued");
      }, 15_000);
    } finally {
      claiming.release();
      await worker.stop();
    }
  });

  it("stops a running run as soon as it is cancelled, not at its next heartbeat", async () => {
    const { roomId, agents } = await createTestRoom(database.db);
    // A heartbeat far longer than the test may take: only the cancel's word can stop the run in time.
    const worker = await startTestWorker(database, {
      heartbeatMs: 60_000,
      leaseMs: 240_000,
      resolveModel: (spec) => resolveModel(spec, { scriptPaceMs: 40, scriptThinkMs: 0 }),
    });
    try {
      const run = await startAgentRun(database.db, roomId, { agentId: agents[0]!.id }, alice);
      await eventually(() => expect(worker.worker.activeRunIds()).toContain(run.id), 10_000);
      expect(await cancelRun(database.db, roomId, run.id, alice)).toBe("stopping");
      const cancelledAt = Date.now();
      await eventually(async () => {
        const [row] = await database.db.select({ status: runs.status }).from(runs).where(eq(runs.id, run.id));
        expect(row!.status).toBe("cancelled");
      }, 10_000);
      expect(Date.now() - cancelledAt).toBeLessThan(5_000);
    } finally {
      await worker.stop();
    }
  });
});
