"use client";

import { useEffect, useId, useRef, useState } from "react";
import { formatUsage } from "@/components/agents/agent-status";
import { describeEvent } from "@/components/feed/describe-event";
import { UnreadableEvents, readFetchedEvents } from "@/components/feed/fetched-events";
import { apiRequest } from "@/components/room/api";
import { useRoom } from "@/components/room/room-store";
import type { AgentDto, StoredEvent, UnreadableEvent } from "@/lib/protocol";
import type { WorkflowDetail } from "@/lib/workflows/read-workflow";
import { MomentButton } from "@/components/timeline/moment-button";
import { Modal } from "@/components/ui/modal";
import { type CauseNode, causeTree, treeSize } from "./cause-tree";
import { traceLine } from "./trace-line";
import { attemptsExplained, workflowTitle } from "./workflow-title";
import { readableInk } from "@/components/ui/readable-color";

const STATUS_LABEL = { active: "in progress", complete: "complete", degraded: "degraded", failed: "failed" } as const;

/** Messages a trace shows: the first page of the workflow, extended as it goes on. */
const TRACE_LIMIT = 1000;

const workflowUrl = (roomId: string, correlationId: string, query: string) =>
  `/api/rooms/${roomId}/workflows/${encodeURIComponent(correlationId)}?${query}`;

/** The sequence number of the newest event of the workflow the page has seen (0: none). */
export function newestSeqOf(feed: StoredEvent[], correlationId: string): number {
  for (let index = feed.length - 1; index >= 0; index--) if (feed[index]!.correlation_id === correlationId) return feed[index]!.seq;
  return 0;
}

/** A workflow as it arrives, its messages not yet read by the shared schema. */
export type FetchedWorkflow = Omit<WorkflowDetail, "messages"> & { messages: unknown };

/**
 * A fetched workflow with its messages read by the shared schema: any it refuses is left out
 * of the messages, reported on the console and returned as unreadable.
 */
export function readWorkflow(fetched: FetchedWorkflow, source: string): { workflow: WorkflowDetail; unreadable: UnreadableEvent[] } {
  const { events, unreadable } = readFetchedEvents(fetched.messages, source);
  return { workflow: { ...fetched, messages: events }, unreadable };
}

/** The newest sequence number a read brought, readable or not (0: none), so the next read starts after it. */
export function newestSeqRead(workflow: WorkflowDetail, unreadable: UnreadableEvent[]): number {
  return Math.max(workflow.messages.at(-1)?.seq ?? 0, ...unreadable.map((each) => each.seq ?? 0));
}

/** The unreadable events shown so far with those of a later read, each counted once however often it was read. */
export function withUnreadable(shown: ReadonlySet<number | string>, read: UnreadableEvent[]): ReadonlySet<number | string> {
  if (read.length === 0) return shown;
  return new Set([...shown, ...read.map((each) => each.seq ?? each.problem)]);
}

/** A trace with the newest totals, and the messages read since it was shown added once each, in order. */
export function withNewMessages(shown: WorkflowDetail, latest: WorkflowDetail, truncated: boolean): WorkflowDetail {
  if (truncated) return { ...latest, messages: shown.messages, nextAfter: shown.nextAfter };
  const bySeq = new Map(shown.messages.map((message) => [message.seq, message]));
  for (const message of latest.messages) bySeq.set(message.seq, message);
  const messages = [...bySeq.values()].sort((a, b) => a.seq - b.seq);
  const overflow = messages.length > TRACE_LIMIT;
  return { ...latest, messages: messages.slice(0, TRACE_LIMIT), nextAfter: overflow ? messages[TRACE_LIMIT - 1]!.seq : latest.nextAfter };
}

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
  // Read again only when the workflow itself moves on, not on every event of the room.
  const newest = useRoom((state) => newestSeqOf(state.feed, correlationId));
  const [trace, setTrace] = useState<WorkflowDetail | null>(null);
  const [unreadable, setUnreadable] = useState<ReadonlySet<number | string>>(new Set());
  const [error, setError] = useState<string | null>(null);
  const readUpTo = useRef(0);
  const requests = useRef(0);
  const source = `workflow ${correlationId}`;

  useEffect(() => {
    let current = true;
    readUpTo.current = 0;
    setTrace(null);
    setUnreadable(new Set());
    apiRequest<{ workflow: FetchedWorkflow }>(workflowUrl(roomId, correlationId, `limit=${TRACE_LIMIT}`), "GET")
      .then((fetched) => {
        if (!current) return;
        const { workflow, unreadable: refused } = readWorkflow(fetched.workflow, source);
        readUpTo.current = newestSeqRead(workflow, refused);
        setTrace(workflow);
        setUnreadable((shown) => withUnreadable(shown, refused));
      })
      .catch((problem: Error) => current && setError(problem.message));
    return () => {
      current = false;
    };
  }, [roomId, correlationId, source]);

  const loaded = trace !== null;
  // biome-ignore lint/correctness/useExhaustiveDependencies: reads again when a newer event arrives, not when the trace it set changes.
  useEffect(() => {
    if (!loaded || newest <= readUpTo.current) return;
    const request = ++requests.current;
    const after = readUpTo.current;
    // Past the first page the list is not extended (the export has it all); the totals still are.
    const truncated = trace.nextAfter !== null;
    apiRequest<{ workflow: FetchedWorkflow }>(
      workflowUrl(roomId, correlationId, `after=${after}&limit=${truncated ? 1 : TRACE_LIMIT}`),
      "GET",
    )
      .then((fetched) => {
        // An answer overtaken by a later one has nothing to add.
        if (request !== requests.current) return;
        const { workflow, unreadable: refused } = readWorkflow(fetched.workflow, source);
        if (!truncated) {
          readUpTo.current = Math.max(readUpTo.current, newestSeqRead(workflow, refused));
          setUnreadable((shown) => withUnreadable(shown, refused));
        }
        setTrace((shown) => (shown ? withNewMessages(shown, workflow, truncated) : workflow));
      })
      .catch(() => {
        // The next event of the workflow tries again.
      });
    // `trace` is read for its page state only; the refetch follows the workflow's newest event.
  }, [roomId, correlationId, source, loaded, newest]);

  const startedBy = trace?.startedBy;
  // A title, not the feed: the trace need not redraw on each event of the room.
  const title = useRoom((state) => workflowTitle(correlationId, { feed: state.feed, brainstorm: state.brainstorm, agents, startedBy }));
  return (
    <Modal label={`Trace: ${title}`} onClose={onClose} className="trace" testId="workflow-trace">
      <div className="trace__head">
        <h2 data-testid="trace-title">{title}</h2>
        <button type="button" className="button trace__close" onClick={onClose} aria-label="Close the trace" data-testid="close-trace">
          ×
        </button>
      </div>
      <p className="trace__id">
        Workflow id <code>{correlationId}</code>
      </p>
      {error && <p className="trace__empty">{error}</p>}
      {!trace && !error && <p className="trace__empty">Reading…</p>}
      {trace && (
        <WorkflowTimeline
          trace={trace}
          unreadable={unreadable.size}
          agents={agents}
          nodeText={(id) => nodes[id]?.text}
          exportHref={`/api/rooms/${roomId}/workflows/${encodeURIComponent(correlationId)}/export`}
        />
      )}
    </Modal>
  );
}

/**
 * A workflow's summary (status, runs, duration, tokens and cost, attempts, the export) and its
 * messages as a timeline with a lane per agent and one for everyone else. Shared by the room's
 * trace and the admin dashboard.
 */
export function WorkflowTimeline({
  trace,
  unreadable,
  agents,
  nodeText,
  exportHref,
}: {
  trace: WorkflowDetail;
  /** How many of its messages could not be read and are left out. */
  unreadable: number;
  agents: AgentDto[];
  nodeText: (nodeId: string) => string | undefined;
  exportHref: string;
}) {
  const [view, setView] = useState<"lanes" | "tree">("lanes");
  const lanes = [...trace.agents.map((agent) => agent.id), "others"];
  const laneOf = (message: StoredEvent) => (lanes.includes(message.agent) ? message.agent : "others");
  const start = new Date(trace.startedAt).getTime();
  return (
    <>
      <div className="trace__summary" data-testid="trace-summary">
        <span className={`trace__status trace__status--${trace.status}`}>{STATUS_LABEL[trace.status]}</span>
        <span>
          {trace.runs} run{trace.runs === 1 ? "" : "s"}
        </span>
        <span>{trace.durationMs === null ? "running" : seconds(trace.durationMs)}</span>
        <span data-testid="trace-usage">
          {formatUsage({ inputTokens: trace.inputTokens, outputTokens: trace.outputTokens, costUsd: trace.costUsd }, trace)}
        </span>
        <span data-testid="trace-attempts" title="Each run is one attempt; a model call made again after a passing failure is one more">
          {attemptsExplained(trace.runs, trace.attempts)}
        </span>
        <a className="link-button" href={exportHref} download>
          Export (JSON Lines)
        </a>
      </div>
      <UnreadableEvents count={unreadable} />
      <fieldset className="trace__views" aria-label="Show the trace">
        <button
          type="button"
          className="button"
          aria-pressed={view === "lanes"}
          onClick={() => setView("lanes")}
          data-testid="trace-view-lanes"
        >
          By agent
        </button>
        <button
          type="button"
          className="button"
          aria-pressed={view === "tree"}
          onClick={() => setView("tree")}
          data-testid="trace-view-tree"
        >
          What caused what
        </button>
      </fieldset>
      {view === "tree" ? (
        <CauseTreeView messages={trace.messages} start={start} agents={agents} nodeText={nodeText} />
      ) : (
        <div className="trace__grid" style={{ gridTemplateColumns: `64px repeat(${lanes.length}, minmax(160px, 1fr))` }}>
          <div className="trace__lane-head" />
          {lanes.map((lane) => {
            const agent = agents.find((candidate) => candidate.id === lane);
            return (
              <div key={lane} className="trace__lane-head" style={{ color: agent && readableInk(agent.color) }}>
                {agent?.name ?? "People and Parley"}
              </div>
            );
          })}
          {trace.messages.map((message) => {
            const line = describeEvent(message, { agents, nodeText });
            const said = traceLine(message, { agents, nodeText });
            const lane = laneOf(message);
            return (
              <div key={message.seq} className="trace__row" data-testid="trace-message" data-type={message.type}>
                <time className="trace__time">+{seconds(new Date(message.timestamp).getTime() - start)}</time>
                {lanes.map((column) => (
                  <div key={column} className="trace__cell">
                    {column === lane && (
                      <div className={`trace__message trace__message--${message.status}`}>
                        <strong>{message.agent_name}</strong> {said}
                        {line.meta && <div className="trace__meta">{line.meta}</div>}
                        {message.error_details && <div className="trace__error">{message.error_details.error_message}</div>}
                        <MomentButton roomId={message.room_id} seq={message.seq} />
                      </div>
                    )}
                  </div>
                ))}
              </div>
            );
          })}
        </div>
      )}
      {trace.nextAfter !== null && <p className="trace__empty">The first 1,000 messages are shown; the export has them all.</p>}
    </>
  );
}

/** A workflow's messages as nested lists, each under the message that caused it. */
export function CauseTreeView({
  messages,
  start,
  agents,
  nodeText,
}: {
  messages: StoredEvent[];
  start: number;
  agents: AgentDto[];
  nodeText: (nodeId: string) => string | undefined;
}) {
  return (
    <ul className="trace__tree" aria-label="What caused what" data-testid="trace-tree">
      {causeTree(messages).map((node) => (
        <CauseBranch key={node.event.seq} node={node} start={start} agents={agents} nodeText={nodeText} />
      ))}
    </ul>
  );
}

/**
 * One message in the tree of causes, with what it caused nested under it behind a disclosure
 * button (open at first), so a long branch can be folded away from the keyboard.
 */
function CauseBranch({
  node,
  start,
  agents,
  nodeText,
}: {
  node: CauseNode;
  start: number;
  agents: AgentDto[];
  nodeText: (nodeId: string) => string | undefined;
}) {
  const [open, setOpen] = useState(true);
  const childrenId = useId();
  const message = node.event;
  const said = traceLine(message, { agents, nodeText });
  const caused = treeSize(node) - 1;
  return (
    <li className="trace__branch" data-testid="trace-node" data-type={message.type}>
      <div className={`trace__node trace__message--${message.status}`}>
        {node.children.length > 0 ? (
          <button
            type="button"
            className="trace__toggle"
            aria-expanded={open}
            aria-controls={childrenId}
            aria-label={`${open ? "Fold" : "Unfold"} what ${message.agent_name}'s ${message.type} caused (${caused})`}
            onClick={() => setOpen((was) => !was)}
          >
            {open ? "▾" : "▸"}
          </button>
        ) : (
          <span className="trace__toggle trace__toggle--leaf" aria-hidden="true" />
        )}
        <time className="trace__time">+{seconds(new Date(message.timestamp).getTime() - start)}</time>
        <span>
          <strong>{message.agent_name}</strong> {said}
          {!open && <span className="trace__meta"> · {caused} more</span>}
        </span>
        {message.error_details && <span className="trace__error">{message.error_details.error_message}</span>}
      </div>
      {node.children.length > 0 && (
        <ul id={childrenId} className="trace__children" hidden={!open}>
          {node.children.map((child) => (
            <CauseBranch key={child.event.seq} node={child} start={start} agents={agents} nodeText={nodeText} />
          ))}
        </ul>
      )}
    </li>
  );
}
