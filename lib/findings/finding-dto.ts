import { type BoardEntryDto, type FindingSeverity, findingSeveritySchema } from "@/lib/protocol";

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

/** A page of `GET /api/rooms/:roomId/findings`. */
export interface FindingsPage {
  findings: FindingDto[];
  /** Give it as `cursor` for the next (older) page; null on the last one. */
  nextCursor: string | null;
}

/**
 * A finding from the board entry that carries it: a stored row (on the server) or the entry a
 * `board.posted` event brought (in the page). Safe in the browser: it reads nothing but the entry.
 */
export function findingToDto(
  entry: Pick<BoardEntryDto, "id" | "runId" | "agentId" | "agentName"> & { content: Record<string, unknown>; createdAt: Date | string },
): FindingDto {
  const severity = findingSeveritySchema.safeParse(entry.content.severity);
  return {
    id: entry.id,
    runId: entry.runId,
    agentId: entry.agentId,
    agentName: entry.agentName,
    finding: String(entry.content.finding ?? ""),
    severity: severity.success ? severity.data : "medium",
    nodeIds: Array.isArray(entry.content.nodeIds) ? entry.content.nodeIds.map(String) : [],
    createdAt: typeof entry.createdAt === "string" ? entry.createdAt : entry.createdAt.toISOString(),
  };
}
