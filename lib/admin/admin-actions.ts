import { randomUUID } from "node:crypto";
import { and, desc, eq, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db, DbOrTx } from "@/db";
import { type AdminAction, type AdminActionKind, adminActions, rooms } from "@/db/schema";
import { ADMIN_ACTOR, type Actor } from "@/lib/events/write-room-events";
import { keysetCursorSchema } from "@/lib/paging/keyset-cursor";
import { type Page, exactTime, keysetPage, limitSchema } from "@/lib/paging/keyset-page";

export interface AdminActionDraft {
  /** A fixed id for a change a retried request may make again: inserted with `onConflictDoNothing`, it is recorded once. */
  id?: string;
  action: AdminActionKind;
  roomId?: string | null;
  roomTitle?: string | null;
  summary: string;
  details?: Record<string, unknown>;
}

/**
 * The insert that records an admin change, for a caller to run in the transaction that makes the change.
 * Without a `roomTitle`, the room's title as it is then is kept: the trail names the room after it is gone.
 */
export function adminActionInsert(db: DbOrTx, draft: AdminActionDraft, at: Date = new Date(), actor: Actor = ADMIN_ACTOR) {
  const roomId = draft.roomId ?? null;
  return db.insert(adminActions).values({
    id: draft.id ?? randomUUID(),
    at,
    actor: actor.id,
    action: draft.action,
    roomId,
    roomTitle: draft.roomTitle ?? (roomId === null ? null : sql`(select ${rooms.title} from ${rooms} where ${rooms.id} = ${roomId})`),
    summary: draft.summary,
    details: draft.details ?? {},
  });
}

export interface AdminActionDto {
  id: string;
  at: string;
  actor: string;
  action: AdminActionKind;
  roomId: string | null;
  roomTitle: string | null;
  summary: string;
  details: Record<string, unknown>;
  /** Whether the room is still there (a deleted or pruned one is not). */
  roomExists: boolean;
}

function actionToDto(row: AdminAction): Omit<AdminActionDto, "roomExists"> {
  return { ...row, at: row.at.toISOString() };
}

export const adminActionsQuerySchema = z.strictObject({
  room: z.string().min(1).max(64).optional(),
  cursor: keysetCursorSchema.optional(),
  limit: limitSchema(50),
});

/** The dashboard's audit trail, newest first, a page at a time; `room` keeps one room's changes. */
export async function listAdminActions(db: Db, query: z.infer<typeof adminActionsQuerySchema>): Promise<Page<AdminActionDto>> {
  const rows = await db
    .select({ row: adminActions, currentTitle: rooms.title, cursorAt: exactTime(adminActions.at) })
    .from(adminActions)
    .leftJoin(rooms, eq(rooms.id, adminActions.roomId))
    .where(
      and(
        query.room ? eq(adminActions.roomId, query.room) : undefined,
        query.cursor ? sql`(${adminActions.at}, ${adminActions.id}) < (${query.cursor.at}::timestamptz, ${query.cursor.id})` : undefined,
      ),
    )
    .orderBy(desc(adminActions.at), desc(adminActions.id))
    .limit(query.limit + 1);
  // A room that still exists is named as it is called now; a deleted one as it was called then.
  return keysetPage(
    rows,
    query.limit,
    (entry) => ({
      ...actionToDto(entry.row),
      roomTitle: entry.currentTitle ?? entry.row.roomTitle,
      roomExists: entry.currentTitle !== null,
    }),
    (entry) => ({ at: entry.cursorAt, id: entry.row.id }),
  );
}
