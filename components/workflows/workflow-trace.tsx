"use client";

import { useEffect, useState } from "react";
import { formatUsage } from "@/components/agents/agent-status";
import { describeEvent } from "@/components/feed/describe-event";
import { apiRequest } from "@/components/room/api";
import { useRoom } from "@/components/room/room-store";
import type { StoredEvent } from "@/lib/protocol";
import type { WorkflowDetail } from "@/lib/workflows/read-workflow";

const STATUS_LABEL = { active: "in progress", complete: "complete", degraded: "degraded", failed: "failed" } as const;

function seconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}

/**
 * One workflow as a timeline: a lane per agent (and one for everyone else), every message in
 * order with its time from the start, and the workflow's status, duration, tokens and cost.
 */
export function WorkflowTrace({ correlationId, onClose }: { correlationId: string; onClose: () => void }) {
  const roomId = useRoom((state) => state.room.id);
  const agents = useRoom((state) => state.agents);
  const nodes = useRoom((state) => state.nodes);
  const lastSeq = useRoom((state) => state.lastSeq);
  const [trace, setTrace] = useState<WorkflowDetail | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    apiRequest<{ workflow: WorkflowDetail }>(`/api/rooms/${roomId}/workflows/${encodeURIComponent(correlationId)}?limit=1000`, "GET")
      .then((answer) => current && setTrace(answer.workflow))
      .catch((problem: Error) => current && setError(problem.message));
    return () => {
      current = false;
    };
    // Read again as the room moves on, while the workflow may still be running.
  }, [roomId, correlationId, lastSeq]);

  const lanes = trace ? [...trace.agents.map((agent) => agent.id), "others"] : [];
  const laneOf = (message: StoredEvent) => (lanes.includes(message.agent) ? message.agent : "others");
  const start = trace ? new Date(trace.startedAt).getTime() : 0;

  return (
    <div className="trace-backdrop" role="dialog" aria-modal="true" aria-label="Workflow trace" onClick={onClose}>
      <div className="trace" data-testid="workflow-trace" onClick={(event) => event.stopPropagation()}>
        <div className="trace__head">
          <h2>Workflow</h2>
          <code className="trace__id">{correlationId}</code>
          <button type="button" className="link-button trace__close" onClick={onClose} aria-label="Close">
            ×
          </button>
        </div>
        {error && <p className="trace__empty">{error}</p>}
        {!trace && !error && <p className="trace__empty">Reading…</p>}
        {trace && (
          <>
            <div className="trace__summary" data-testid="trace-summary">
              <span className={`trace__status trace__status--${trace.status}`}>{STATUS_LABEL[trace.status]}</span>
              <span>{trace.runs} run{trace.runs === 1 ? "" : "s"}</span>
              <span>{trace.durationMs === null ? "running" : seconds(trace.durationMs)}</span>
              <span>{formatUsage({ inputTokens: trace.inputTokens, outputTokens: trace.outputTokens, costUsd: trace.costUsd })}</span>
              <span>{trace.attempts} attempt{trace.attempts === 1 ? "" : "s"}</span>
              <a className="link-button" href={`/api/rooms/${roomId}/workflows/${encodeURIComponent(correlationId)}/export`} download>
                Export (JSON Lines)
              </a>
            </div>
            <div className="trace__grid" style={{ gridTemplateColumns: `64px repeat(${lanes.length}, minmax(160px, 1fr))` }}>
              <div className="trace__lane-head" />
              {lanes.map((lane) => {
                const agent = agents.find((candidate) => candidate.id === lane);
                return (
                  <div key={lane} className="trace__lane-head" style={{ color: agent?.color }}>
                    {agent?.name ?? "People and Parley"}
                  </div>
                );
              })}
              {trace.messages.map((message) => {
                const line = describeEvent(message, { agents, nodeText: (id) => nodes[id]?.text });
                const lane = laneOf(message);
                return (
                  <div key={message.seq} className="trace__row" data-testid="trace-message" data-type={message.type}>
                    <time className="trace__time">+{seconds(new Date(message.timestamp).getTime() - start)}</time>
                    {lanes.map((column) => (
                      <div key={column} className="trace__cell">
                        {column === lane && (
                          <div className={`trace__message trace__message--${message.status}`}>
                            <strong>{message.agent_name}</strong> {line.text || (line.message ? `“${line.message.slice(0, 120)}”` : line.chips?.join(", ") || "took a step")}
                            {line.meta && <div className="trace__meta">{line.meta}</div>}
                            {message.error_details && <div className="trace__error">{message.error_details.errorMessage}</div>}
                          </div>
                        )}
                      </div>
                    ))}
                  </div>
                );
              })}
            </div>
            {trace.nextAfter !== null && <p className="trace__empty">The first 1,000 messages are shown; the export has them all.</p>}
          </>
        )}
      </div>
    </div>
  );
}
