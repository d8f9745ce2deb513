import { and, desc, eq, lt, or, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/db";
import { type BoardEntry, agents, boardEntries } from "@/db/schema";
import { badRequest } from "@/lib/errors";
import { type FindingSeverity, findingSeveritySchema } from "@/lib/protocol";

/** A finding as the page and the API show it. */
export interface FindingDto {
  id: string;
  runId: string | null;
  agentId: string | null;
  agentName: string;
  finding: string;
  severity: FindingSeverity;
  nodeIds: string[];
  createdAt: string;
}

export function findingToDto(entry: Pick<BoardEntry, "id" | "runId" | "agentId" | "agentName" | "content" | "createdAt">): FindingDto {
  const severity = findingSeveritySchema.safeParse(entry.content.severity);
  return {
    id: entry.id,
    runId: entry.runId,
    agentId: entry.agentId,
    agentName: entry.agentName,
    finding: String(entry.content.finding ?? ""),
    severity: severity.success ? severity.data : "medium",
    nodeIds: Array.isArray(entry.content.nodeIds) ? entry.content.nodeIds.map(String) : [],
    createdAt: entry.createdAt.toISOString(),
  };
}

/** The query of `GET /api/rooms/:roomId/findings`. */
export const findingsQuerySchema = z.strictObject({
  severity: findingSeveritySchema.optional(),
  /** An agent's id or persona. */
  agent: z.string().trim().min(1).max(64).optional(),
  /** Only findings posted before this time (ISO 8601): the `createdAt` of the last one a page showed. */
  before: z.iso.datetime({ offset: true, message: "before must be an ISO 8601 time, e.g. 2026-01-01T12:00:00Z" }).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(50),
});
export type FindingsQuery = z.infer<typeof findingsQuerySchema>;

/** Reads the query string, refusing unknown or bad parameters (400). */
export function parseFindingsQuery(params: URLSearchParams): FindingsQuery {
  const raw: Record<string, string> = {};
  for (const [key, value] of params) {
    if (key in raw) throw badRequest(`${key} is given more than once.`);
    raw[key] = value;
  }
  const parsed = findingsQuerySchema.safeParse(raw);
  if (!parsed.success) {
    throw badRequest(
      parsed.error.issues
        .map((issue) =>
          issue.code === "unrecognized_keys"
            ? `unknown parameter(s) ${issue.keys.join(", ")}; use severity, agent, before, limit`
            : `${issue.path.join(".")}: ${issue.message}`,
        )
        .join("; "),
    );
  }
  return parsed.data;
}

/** A room's findings, newest first, filtered by severity and agent, `limit` at a time. */
export async function readFindings(db: Db, roomId: string, query: Partial<FindingsQuery> = {}): Promise<FindingDto[]> {
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
  const rows = await db
    .select()
    .from(boardEntries)
    .where(and(...conditions))
    .orderBy(desc(boardEntries.createdAt), desc(boardEntries.id))
    .limit(query.limit ?? 50);
  return rows.map(findingToDto);
}
