"use client";

import { useState } from "react";
import { useShallow } from "zustand/react/shallow";
import { useRoom } from "@/components/room/room-store";
import type { FindingDto } from "@/lib/findings/read-findings";
import { type FindingSeverity, findingSeverities } from "@/lib/protocol";

function timeOf(iso: string): string {
  return new Date(iso).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
}

/**
 * What the agents found, newest first, filterable by severity and agent. Clicking a finding
 * shows its nodes on the canvas and its entry in the feed.
 */
export function FindingsPanel() {
  const { findings, agents, feed } = useRoom(useShallow((state) => ({ findings: state.findings, agents: state.agents, feed: state.feed })));
  const { highlight, showSideTab, focusFeedEntry } = useRoom(
    useShallow((state) => ({ highlight: state.highlight, showSideTab: state.showSideTab, focusFeedEntry: state.focusFeedEntry })),
  );
  const [severity, setSeverity] = useState<FindingSeverity | "all">("all");
  const [agentId, setAgentId] = useState<string>("all");
  const shown = findings
    .filter((finding) => (severity === "all" || finding.severity === severity) && (agentId === "all" || finding.agentId === agentId))
    .slice()
    .reverse();

  const open = (finding: FindingDto) => {
    highlight(finding.nodeIds);
    const posted = feed.find((event) => event.type === "board.posted" && event.payload.entry.id === finding.id);
    if (posted) {
      focusFeedEntry(posted.seq);
      showSideTab("activity");
    }
  };

  return (
    <div className="findings" data-testid="findings">
      <div className="findings__filters">
        {(["all", ...findingSeverities] as const).map((option) => (
          <button
            key={option}
            type="button"
            className={`chip findings__filter${severity === option ? " chip--on" : ""}`}
            aria-pressed={severity === option}
            data-testid={`findings-severity-${option}`}
            onClick={() => setSeverity(option)}
          >
            {option === "all" ? "All" : option}
          </button>
        ))}
        <select className="findings__agent" value={agentId} aria-label="Agent" data-testid="findings-agent" onChange={(event) => setAgentId(event.target.value)}>
          <option value="all">Every agent</option>
          {agents.map((agent) => (
            <option key={agent.id} value={agent.id}>
              {agent.name}
            </option>
          ))}
        </select>
      </div>
      {shown.length === 0 ? (
        <p className="findings__empty">{findings.length ? "No finding matches." : "No findings yet: agents post what they discover here."}</p>
      ) : (
        <ol className="findings__list">
          {shown.map((finding) => {
            const agent = agents.find((candidate) => candidate.id === finding.agentId);
            return (
              <li key={finding.id} className={`finding finding--${finding.severity}`} data-testid="finding" data-severity={finding.severity}>
                <button type="button" className="finding__open" onClick={() => open(finding)} title="Show in the feed and on the canvas">
                  <span className={`severity severity--${finding.severity}`}>{finding.severity}</span>
                  <span className="finding__who" style={{ color: agent?.color }}>
                    {finding.agentName}
                  </span>
                  <time className="finding__time" dateTime={finding.createdAt}>
                    {timeOf(finding.createdAt)}
                  </time>
                  <span className="finding__text">{finding.finding}</span>
                </button>
              </li>
            );
          })}
        </ol>
      )}
    </div>
  );
}
