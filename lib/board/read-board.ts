import { and, desc, eq, gt, inArray, lte, ne, or, isNull } from "drizzle-orm";
import type { Db, DbOrTx } from "@/db";
import { type BoardEntry, type BoardEntryKind, boardEntries } from "@/db/schema";

/** Deletes a room's expired entries; called on every read so they are never served. */
async function pruneExpiredEntries(db: DbOrTx, roomId: string, now: Date = new Date()): Promise<number> {
  const deleted = await db
    .delete(boardEntries)
    .where(and(eq(boardEntries.roomId, roomId), lte(boardEntries.expiresAt, now)))
    .returning({ id: boardEntries.id });
  return deleted.length;
}

export interface ReadBoardOptions {
  kind?: BoardEntryKind;
  /** Leave out entries of this kind (findings have a section of their own in prompts). */
  excludeKind?: BoardEntryKind;
  limit?: number;
  /** Leave out what this run wrote itself (agents see their own work already). */
  excludeRunId?: string | null;
  now?: Date;
}

/** The most recent live entries, newest first. Prunes expired ones first. */
export async function readBoard(db: Db, roomId: string, options: ReadBoardOptions = {}): Promise<BoardEntry[]> {
  const now = options.now ?? new Date();
  await pruneExpiredEntries(db, roomId, now);
  const conditions = [eq(boardEntries.roomId, roomId), or(isNull(boardEntries.expiresAt), gt(boardEntries.expiresAt, now))!];
  if (options.kind) conditions.push(eq(boardEntries.kind, options.kind));
  if (options.excludeKind) conditions.push(ne(boardEntries.kind, options.excludeKind));
  if (options.excludeRunId) {
    conditions.push(or(isNull(boardEntries.runId), ne(boardEntries.runId, options.excludeRunId))!);
  }
  return db
    .select()
    .from(boardEntries)
    .where(and(...conditions))
    .orderBy(desc(boardEntries.createdAt))
    .limit(Math.min(Math.max(options.limit ?? 20, 1), 100));
}

/** Requests addressed to a persona that nobody has answered yet, oldest first. */
export async function openRequestsFor(
  db: Db,
  roomId: string,
  persona: string,
  options: { includeEntryIds?: string[]; now?: Date } = {},
): Promise<BoardEntry[]> {
  const now = options.now ?? new Date();
  const pending = and(eq(boardEntries.targetPersona, persona), inArray(boardEntries.requestStatus, ["open", "queued", "in_progress"]));
  const rows = await db
    .select()
    .from(boardEntries)
    .where(
      and(
        eq(boardEntries.roomId, roomId),
        eq(boardEntries.kind, "request"),
        gt(boardEntries.expiresAt, now),
        options.includeEntryIds?.length ? or(pending, inArray(boardEntries.id, options.includeEntryIds)) : pending,
      ),
    )
    .orderBy(boardEntries.createdAt)
    .limit(10);
  return rows;
}

/** The oldest open request in a room (the scheduler serves these first). */
export async function oldestOpenRequest(db: DbOrTx, roomId: string, now: Date = new Date()): Promise<BoardEntry | null> {
  const [row] = await db
    .select()
    .from(boardEntries)
    .where(
      and(
        eq(boardEntries.roomId, roomId),
        eq(boardEntries.kind, "request"),
        eq(boardEntries.requestStatus, "open"),
        gt(boardEntries.expiresAt, now),
      ),
    )
    .orderBy(boardEntries.createdAt)
    .limit(1);
  return row ?? null;
}
