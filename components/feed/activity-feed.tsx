"use client";

import { memo, useCallback, useEffect, useMemo, useRef, useState } from "react";
import { useShallow } from "zustand/react/shallow";
import type { AgentDto, BoardEntryDto, StoredEvent } from "@/lib/protocol";
import { useRoom } from "@/components/room/room-store";
import type { RoomState, TypingState } from "@/components/room/room-state";
import type { SidePanelState } from "@/components/room/room-store";
import { BroadcastThread } from "@/components/broadcast/broadcast-thread";
import { MomentButton } from "@/components/timeline/moment-button";
import { DialogueThread } from "@/components/dialogue/dialogue-thread";
import { LocalTime } from "@/components/ui/local-time";
import { describeEvent } from "./describe-event";
import { earlierStart, feedWindowStart, timeOfDay } from "./feed-window";
import { isTraceable, workflowIdsIn } from "./traceable";
import { readableInk } from "@/components/ui/readable-color";

const selectFeed = (state: RoomState & SidePanelState) => ({
  feed: state.feed,
  agents: state.agents,
  nodes: state.nodes,
  board: state.board,
  typing: state.typing,
  focusedSeq: state.focusedSeq,
  dialogues: state.dialogues,
});

/** The room's history as it happens: who did what, newest at the bottom. Click an entry to find it on the canvas. */
export function ActivityFeed() {
  const { feed, agents, nodes, board, typing, focusedSeq, dialogues } = useRoom(useShallow(selectFeed));
  const highlight = useRoom((state) => state.highlight);
  const showPane = useRoom((state) => state.showPane);
  // On a phone the canvas is another pane: showing notes switches to it.
  const showOnCanvas = useCallback(
    (nodeIds: string[]) => {
      showPane("canvas");
      highlight(nodeIds);
    },
    [showPane, highlight],
  );
  const trace = useRoom((state) => state.traceWorkflow);
  const list = useRef<HTMLOListElement>(null);
  const stickToBottom = useRef(true);
  // The oldest entry a person asked to see; null: the newest entries only.
  const [earliest, setEarliest] = useState<number | null>(null);
  const seqs = useMemo(() => feed.map((event) => event.seq), [feed]);
  const start = feedWindowStart(seqs, earliest, focusedSeq);

  // biome-ignore lint/correctness/useExhaustiveDependencies: each new entry or typed word scrolls the list down.
  useEffect(() => {
    // In the next frame, when the page lays itself out anyway: reading the list's height here would
    // lay out the whole page in the middle of drawing a change (or a moment of the room's history),
    // and again once the rest of the page has drawn it.
    const frame = requestAnimationFrame(() => {
      const element = list.current;
      if (element && stickToBottom.current) element.scrollTop = element.scrollHeight;
    });
    return () => cancelAnimationFrame(frame);
  }, [feed, typing]);

  // A finding clicked elsewhere brings its entry into view.
  useEffect(() => {
    if (focusedSeq === null) return;
    stickToBottom.current = false;
    list.current?.querySelector(`[data-seq="${focusedSeq}"]`)?.scrollIntoView({ block: "center" });
  }, [focusedSeq]);

  // Read through refs so that the entries keep their props while notes and the board change
  // (nearly every event changes one): each entry is described once, when it first shows, instead
  // of the whole feed again at every event — or at every step through a room's history.
  const latest = useRef({ nodes, board });
  latest.current = { nodes, board };
  const nodeText = useCallback((nodeId: string) => latest.current.nodes[nodeId]?.text, []);
  const boardEntry = useCallback((entryId: string) => latest.current.board[entryId], []);
  const workflowIds = useMemo(() => workflowIdsIn(feed), [feed]);
  const saidInDialogue = useMemo(() => {
    const runIds = new Set(Object.values(dialogues).flatMap((thread) => thread.messages.map((message) => message.runId)));
    return (runId: string) => runIds.has(runId);
  }, [dialogues]);

  return (
    <ol
      className="feed__list"
      data-testid="feed"
      id="activity-feed"
      // Focusable, so the arrow and page keys scroll it.
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus for the keyboard to scroll it.
      tabIndex={0}
      aria-label="Activity"
      ref={list}
      onScroll={(event) => {
        const element = event.currentTarget;
        stickToBottom.current = element.scrollHeight - element.scrollTop - element.clientHeight < 40;
      }}
    >
      {start > 0 && (
        <li className="feed__earlier">
          <button
            type="button"
            className="button"
            data-testid="feed-earlier"
            onClick={() => {
              stickToBottom.current = false;
              setEarliest(earlierStart(seqs, start));
            }}
          >
            Show earlier activity
          </button>
        </li>
      )}
      {feed.slice(start).map((event) => (
        <FeedEntry
          key={event.seq}
          event={event}
          agents={agents}
          nodeText={nodeText}
          boardEntry={boardEntry}
          saidInDialogue={saidInDialogue}
          onSelect={showOnCanvas}
          focused={event.seq === focusedSeq}
          traceable={isTraceable(event, agents, workflowIds)}
          onTrace={trace}
        />
      ))}
      {Object.entries(typing).map(([agentId, state]) => (
        <TypingEntry key={agentId} agent={agents.find((agent) => agent.id === agentId)} state={state} />
      ))}
    </ol>
  );
}

function TypingEntry({ agent, state }: { agent: AgentDto | undefined; state: TypingState }) {
  if (!agent) return null;
  return (
    <li className="feed__entry feed__entry--typing" data-testid="feed-typing">
      <span className="feed__dot" style={{ background: agent.color }} />
      <div className="feed__body">
        <div className="feed__line">
          <strong style={{ color: readableInk(agent.color) }}>{agent.name}</strong> is typing…
        </div>
        <div className="feed__message">
          {state.text.slice(-300)}
          <span className="caret" />
        </div>
      </div>
    </li>
  );
}

const FeedEntry = memo(function FeedEntry({
  event,
  agents,
  nodeText,
  boardEntry,
  saidInDialogue,
  onSelect,
  focused,
  traceable,
  onTrace,
}: {
  event: StoredEvent;
  agents: AgentDto[];
  nodeText: (nodeId: string) => string | undefined;
  boardEntry: (entryId: string) => BoardEntryDto | undefined;
  saidInDialogue: (runId: string) => boolean;
  onSelect: (nodeIds: string[]) => void;
  focused: boolean;
  /** It belongs to a workflow, which "trace" opens. */
  traceable: boolean;
  onTrace: (correlationId: string) => void;
}) {
  const line = describeEvent(event, { agents, nodeText, boardEntry, saidInDialogue });
  if (line.hidden) return null;
  const agent = agents.find((candidate) => candidate.id === event.agent);
  const color = agent?.color ?? (event.agent.startsWith("human:") ? "#c9a227" : "#868e96");
  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents: the whole entry is a larger target for pointers and touch; its "show" button does the same from the keyboard.
    <li
      onClick={() => line.nodeIds.length && onSelect(line.nodeIds)}
      className={`feed__entry feed__entry--${line.tone}${line.quiet ? " feed__entry--quiet" : ""}${line.nodeIds.length ? " feed__entry--linked" : ""}${focused ? " feed__entry--focused" : ""}`}
      data-testid="feed-entry"
      data-type={event.type}
      data-seq={event.seq}
      title={line.nodeIds.length ? "Show on the canvas" : undefined}
    >
      <span className="feed__dot" style={{ background: color }} />
      <div className="feed__body">
        <div className="feed__line">
          <strong style={{ color: agent ? readableInk(color) : undefined }}>{event.agent_name}</strong> {line.text}
          {line.nodeIds.length > 0 && (
            <button type="button" className="feed__show" data-testid="feed-show" onClick={() => onSelect(line.nodeIds)}>
              show<span className="visually-hidden"> on the canvas</span>
            </button>
          )}
          {line.palette && (
            <span className="feed__palette">
              {line.palette.map((swatch) => (
                <span key={swatch} className="feed__swatch" style={{ background: swatch }} title={swatch} />
              ))}
            </span>
          )}
        </div>
        {line.inReplyTo && <div className="feed__reply">↳ in reply to {line.inReplyTo}</div>}
        {line.message && <div className="feed__message">{line.message}</div>}
        {line.broadcastId && <BroadcastThread broadcastId={line.broadcastId} />}
        {line.dialogueId && <DialogueThread dialogueId={line.dialogueId} />}
        {line.detail && <div className="feed__detail">{line.detail}</div>}
        {(line.chips?.length || line.meta) && (
          <div className="feed__meta">
            {line.chips?.map((chip) => (
              <span key={chip} className="feed__chip">
                {chip}
              </span>
            ))}
            {line.meta && <span className="feed__figures">{line.meta}</span>}
          </div>
        )}
      </div>
      <div className="feed__aside">
        <LocalTime className="feed__time" iso={event.timestamp} format={timeOfDay} />
        <MomentButton roomId={event.room_id} seq={event.seq} />
        {traceable && (
          <button
            type="button"
            className="feed__trace"
            data-testid="trace-workflow"
            title="Trace this workflow"
            aria-label={`Trace the workflow of ${event.agent_name}'s step`}
            onClick={(click) => {
              click.stopPropagation();
              onTrace(event.correlation_id);
            }}
          >
            trace
          </button>
        )}
      </div>
    </li>
  );
});
