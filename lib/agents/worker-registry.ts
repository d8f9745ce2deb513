import { eq, gte, lt, sql } from "drizzle-orm";
import type { Db } from "@/db";
import { type Worker, workers } from "@/db/schema";

/** How often a running worker refreshes its row in `workers`. */
export const WORKER_BEAT_MS = 2_000;
/**
 * A worker not heard from for this long is taken for dead and no longer listed: several missed
 * beats, and within the ten seconds in which another worker takes its runs over.
 */
const WORKER_STALE_MS = 10_000;
/** Rows of workers that died without removing them are cleared once they are this old. */
const FORGOTTEN_AFTER_MS = 24 * 3_600_000;

/** A worker starting: its row (new, or the one it left when it last ran under this name), and old rows of dead workers cleared. */
export async function registerWorker(db: Db, name: string): Promise<void> {
  await db.delete(workers).where(lt(workers.lastSeenAt, sql`now() - ${FORGOTTEN_AFTER_MS} * interval '1 millisecond'`));
  await db
    .insert(workers)
    .values({ name })
    .onConflictDoUpdate({ target: workers.name, set: { startedAt: sql`now()`, lastSeenAt: sql`now()` } });
}

/** A running worker's heartbeat: it is alive now. Puts its row back should it have been cleared. */
export async function beatWorker(db: Db, name: string): Promise<void> {
  await db
    .insert(workers)
    .values({ name })
    .onConflictDoUpdate({ target: workers.name, set: { lastSeenAt: sql`now()` } });
}

/** A worker stopping: it is no longer listed. */
export async function unregisterWorker(db: Db, name: string): Promise<void> {
  await db.delete(workers).where(eq(workers.name, name));
}

/** The workers heard from within `WORKER_STALE_MS`, idle ones too, by name. */
export async function listLiveWorkers(db: Db): Promise<Worker[]> {
  return db
    .select()
    .from(workers)
    .where(gte(workers.lastSeenAt, sql`now() - ${WORKER_STALE_MS} * interval '1 millisecond'`))
    .orderBy(workers.name);
}
