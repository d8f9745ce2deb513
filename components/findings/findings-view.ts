import { FEED_LIMIT } from "@/components/room/room-state";
import type { FindingDto } from "@/lib/findings/finding-dto";
import { encodeKeysetCursor } from "@/lib/paging/keyset-cursor";
import type { FindingSeverity, StoredEvent } from "@/lib/protocol";

/** How many older findings one "Show older" asks for. */
const OLDER_FINDINGS_PAGE = 50;

/** What the findings board shows: a severity and an agent's id, or every one of either. */
export interface FindingsFilter {
  severity: FindingSeverity | "all";
  agentId: string | "all";
}

export const EVERY_FINDING: FindingsFilter = { severity: "all", agentId: "all" };

export function matchesFilter(finding: FindingDto, filter: FindingsFilter): boolean {
  return (
    (filter.severity === "all" || finding.severity === filter.severity) && (filter.agentId === "all" || finding.agentId === filter.agentId)
  );
}

/**
 * The findings the board lists, newest first: those the page holds (`live`, oldest first, kept
 * current by the stream) followed by the older pages fetched for this filter, each finding once,
 * those that do not match left out.
 */
export function visibleFindings(live: FindingDto[], olderPages: FindingDto[][], filter: FindingsFilter): FindingDto[] {
  const seen = new Set<string>();
  const shown: FindingDto[] = [];
  for (const finding of [...live.slice().reverse(), ...olderPages.flat()]) {
    if (seen.has(finding.id) || !matchesFilter(finding, filter)) continue;
    seen.add(finding.id);
    shown.push(finding);
  }
  return shown;
}

/**
 * Where the page of findings older than `oldest` starts: right after it, by its time and then
 * its id, so findings sharing its millisecond are neither repeated nor skipped. Null when
 * there is nothing to page back from.
 */
export function olderCursor(oldest: FindingDto | undefined): string | null {
  return oldest ? encodeKeysetCursor({ at: oldest.createdAt, id: oldest.id }) : null;
}

/** The query of `GET /api/rooms/:roomId/findings` for the page after `cursor` under this filter. */
export function olderFindingsQuery(filter: FindingsFilter, cursor: string, limit = OLDER_FINDINGS_PAGE): string {
  const query = new URLSearchParams({ cursor, limit: String(limit) });
  if (filter.severity !== "all") query.set("severity", filter.severity);
  if (filter.agentId !== "all") query.set("agent", filter.agentId);
  return query.toString();
}

/** Where clicking a finding leads. */
export type FindingDestination =
  /** Its entry in the feed, and its notes still on the canvas. */
  | { kind: "feed"; seq: number; nodeIds: string[] }
  /** Its entry is older than the feed holds: its notes on the canvas, and a word saying so. */
  | { kind: "older"; nodeIds: string[]; notice: string };

/**
 * Where a clicked finding leads: the feed entry that posted it, when the feed still holds it
 * (it keeps the room's latest `FEED_LIMIT` events), and its notes that are still on the canvas.
 */
export function findingDestination(finding: FindingDto, feed: StoredEvent[], onCanvas: (nodeId: string) => boolean): FindingDestination {
  const nodeIds = finding.nodeIds.filter(onCanvas);
  const posted = feed.find((event) => event.type === "board.posted" && event.payload.entry.id === finding.id);
  if (posted) return { kind: "feed", seq: posted.seq, nodeIds };
  const older = `Its entry is older than the latest ${FEED_LIMIT} events the activity feed keeps`;
  const notice =
    nodeIds.length > 0
      ? `${older}; its ${nodeIds.length === 1 ? "note is" : `${nodeIds.length} notes are`} highlighted on the canvas.`
      : finding.nodeIds.length > 0
        ? `${older}, and the notes it points at are no longer on the canvas.`
        : `${older}; it points at no notes on the canvas.`;
  return { kind: "older", nodeIds, notice };
}
