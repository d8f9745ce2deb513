import { and, desc, eq, lt, or, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/db";
import { agents, boardEntries } from "@/db/schema";
import { badRequest } from "@/lib/errors";
import { encodeKeysetCursor, keysetCursorSchema } from "@/lib/paging/keyset-cursor";
import { findingSeveritySchema } from "@/lib/protocol";
import { type FindingsPage, findingToDto } from "./finding-dto";

/** The query of `GET /api/rooms/:roomId/findings`. */
export const findingsQuerySchema = z.strictObject({
  severity: findingSeveritySchema.optional(),
  /** An agent's id or persona. */
  agent: z.string().trim().min(1).max(64).optional(),
  /** Continues after the last finding a page showed: that page's `nextCursor`. */
  cursor: keysetCursorSchema.optional(),
  /** Only findings posted before this time (ISO 8601). */
  before: z.iso.datetime({ offset: true, message: "before must be an ISO 8601 time, e.g. 2026-01-01T12:00:00Z" }).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(50),
});
export type FindingsQuery = z.infer<typeof findingsQuerySchema>;

/**
 * A room's findings, newest first, filtered by severity and agent, `limit` at a time; findings
 * posted in the same millisecond are ordered by id, so paging by `nextCursor` lists each once.
 */
export async function readFindings(db: Db, roomId: string, query: Partial<FindingsQuery> = {}): Promise<FindingsPage> {
  const limit = query.limit ?? 50;
  const conditions = [eq(boardEntries.roomId, roomId), eq(boardEntries.kind, "finding")];
  if (query.severity) conditions.push(sql`${boardEntries.content} ->> 'severity' = ${query.severity}`);
  if (query.agent) {
    const agent = query.agent;
    const [member] = await db
      .select({ id: agents.id })
      .from(agents)
      .where(and(eq(agents.roomId, roomId), or(eq(agents.id, agent), eq(agents.persona, agent))));
    if (!member) throw badRequest(`agent: no agent "${agent}" in this room.`);
    conditions.push(eq(boardEntries.agentId, member.id));
  }
  if (query.before) conditions.push(lt(boardEntries.createdAt, new Date(query.before)));
  if (query.cursor) {
    conditions.push(sql`(${boardEntries.createdAt}, ${boardEntries.id}) < (${query.cursor.at}::timestamptz, ${query.cursor.id})`);
  }
  const rows = await db
    .select()
    .from(boardEntries)
    .where(and(...conditions))
    .orderBy(desc(boardEntries.createdAt), desc(boardEntries.id))
    .limit(limit + 1);
  const findings = rows.slice(0, limit).map(findingToDto);
  const last = findings.at(-1);
  return { findings, nextCursor: rows.length > limit && last ? encodeKeysetCursor({ at: last.createdAt, id: last.id }) : null };
}
