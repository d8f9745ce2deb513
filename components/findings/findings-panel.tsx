"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useShallow } from "zustand/react/shallow";
import { apiRequest } from "@/components/room/api";
import { useRoom } from "@/components/room/room-store";
import type { FindingDto, FindingsPage } from "@/lib/findings/finding-dto";
import { findingSeverities } from "@/lib/protocol";
import { findingDestination, olderCursor, olderFindingsQuery, visibleFindings } from "./findings-view";
import { readableInk } from "@/components/ui/readable-color";
import { LocalTime } from "@/components/ui/local-time";

function timeOf(iso: string): string {
  return new Date(iso).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
}

/**
 * What the agents found, newest first, filterable by severity and agent: the findings the page
 * holds, then older ones a page at a time ("Show older"). Clicking a finding shows its nodes on
 * the canvas and its entry in the feed, or says that the entry is older than the feed keeps.
 */
export function FindingsPanel() {
  const { roomId, findings, agents, feed, nodes, filter } = useRoom(
    useShallow((state) => ({
      roomId: state.room.id,
      findings: state.findings,
      agents: state.agents,
      feed: state.feed,
      nodes: state.nodes,
      filter: state.findingsFilter,
    })),
  );
  const { highlight, showSideTab, focusFeedEntry, filterFindings } = useRoom(
    useShallow((state) => ({
      highlight: state.highlight,
      showSideTab: state.showSideTab,
      focusFeedEntry: state.focusFeedEntry,
      filterFindings: state.filterFindings,
    })),
  );
  const [notice, setNotice] = useState<string | null>(null);
  // Findings older than those the page holds, fetched on demand for the filter and kept for it.
  const oldestHeld = findings[0];
  const older = useInfiniteQuery({
    queryKey: ["findings", roomId, oldestHeld?.id ?? null, filter.severity, filter.agentId],
    queryFn: ({ pageParam }) => apiRequest<FindingsPage>(`/api/rooms/${roomId}/findings?${olderFindingsQuery(filter, pageParam)}`, "GET"),
    initialPageParam: olderCursor(oldestHeld) ?? "",
    getNextPageParam: (page) => page.nextCursor ?? undefined,
    enabled: false,
    staleTime: Infinity,
  });
  const pages = older.data?.pages.map((page) => page.findings) ?? [];
  const shown = visibleFindings(findings, pages, filter);
  const exhausted = pages.length > 0 && !older.hasNextPage;

  const open = (finding: FindingDto) => {
    const destination = findingDestination(finding, feed, (nodeId) => nodeId in nodes);
    highlight(destination.nodeIds);
    if (destination.kind === "feed") {
      setNotice(null);
      focusFeedEntry(destination.seq);
      showSideTab("activity");
    } else {
      setNotice(destination.notice);
    }
  };
  const choose = (change: Partial<typeof filter>) => {
    setNotice(null);
    filterFindings({ ...filter, ...change });
  };

  return (
    <div className="findings" data-testid="findings">
      <div className="findings__filters">
        {(["all", ...findingSeverities] as const).map((option) => (
          <button
            key={option}
            type="button"
            className={`chip findings__filter${filter.severity === option ? " chip--on" : ""}`}
            aria-pressed={filter.severity === option}
            data-testid={`findings-severity-${option}`}
            onClick={() => choose({ severity: option })}
          >
            {option === "all" ? "All" : option}
          </button>
        ))}
        <select
          className="findings__agent"
          value={filter.agentId}
          aria-label="Agent"
          data-testid="findings-agent"
          onChange={(event) => choose({ agentId: event.target.value })}
        >
          <option value="all">Every agent</option>
          {agents.map((agent) => (
            <option key={agent.id} value={agent.id}>
              {agent.name}
            </option>
          ))}
        </select>
      </div>
      {notice && (
        <p className="findings__notice" role="status" data-testid="findings-notice">
          {notice}
        </p>
      )}
      {shown.length === 0 ? (
        <p className="findings__empty">
          {findings.length
            ? exhausted
              ? "No finding matches."
              : "None of the latest findings match."
            : "No findings yet: agents post what they discover here."}
        </p>
      ) : (
        <ol className="findings__list">
          {shown.map((finding) => {
            const agent = agents.find((candidate) => candidate.id === finding.agentId);
            return (
              <li
                key={finding.id}
                className={`finding finding--${finding.severity}`}
                data-testid="finding"
                data-severity={finding.severity}
                data-agent={finding.agentId ?? ""}
              >
                <button type="button" className="finding__open" onClick={() => open(finding)} title="Show in the feed and on the canvas">
                  <span className={`severity severity--${finding.severity}`}>{finding.severity}</span>
                  <span className="finding__who" style={{ color: agent && readableInk(agent.color) }}>
                    {finding.agentName}
                  </span>
                  <LocalTime className="finding__time" iso={finding.createdAt} format={timeOf} />
                  <span className="finding__text">{finding.finding}</span>
                </button>
              </li>
            );
          })}
        </ol>
      )}
      {oldestHeld && (
        <div className="findings__more">
          {exhausted ? (
            <span data-testid="findings-no-older">No older findings.</span>
          ) : (
            <button
              type="button"
              className="chip findings__older"
              data-testid="findings-older"
              disabled={older.isFetching}
              onClick={() => void older.fetchNextPage()}
            >
              {older.isFetching ? "Loading…" : "Show older"}
            </button>
          )}
          {older.error && <span className="findings__error">{older.error.message}</span>}
        </div>
      )}
    </div>
  );
}
