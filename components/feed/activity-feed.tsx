"use client";

import { memo, useCallback, useEffect, useRef } from "react";
import { useShallow } from "zustand/react/shallow";
import type { AgentDto, StoredEvent } from "@/lib/protocol";
import { useRoom } from "@/components/room/room-store";
import type { RoomState } from "@/components/room/room-state";
import { describeEvent } from "./describe-event";

const selectFeed = (state: RoomState) => ({ feed: state.feed, agents: state.agents, nodes: state.nodes });

function timeOf(iso: string): string {
  return new Date(iso).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
}

/** The room's history as it happens: who did what, newest at the bottom. Click an entry to find it on the canvas. */
export function ActivityFeed() {
  const { feed, agents, nodes } = useRoom(useShallow(selectFeed));
  const highlight = useRoom((state) => state.highlight);
  const list = useRef<HTMLOListElement>(null);
  const stickToBottom = useRef(true);

  useEffect(() => {
    const element = list.current;
    if (element && stickToBottom.current) element.scrollTop = element.scrollHeight;
  }, [feed]);

  const nodeText = useCallback((nodeId: string) => nodes[nodeId]?.text, [nodes]);

  return (
    <section className="panel feed" aria-label="Activity">
      <h2 className="panel__title">Activity</h2>
      <ol
        className="feed__list"
        data-testid="feed"
        ref={list}
        onScroll={(event) => {
          const element = event.currentTarget;
          stickToBottom.current = element.scrollHeight - element.scrollTop - element.clientHeight < 40;
        }}
      >
        {feed.map((event) => (
          <FeedEntry key={event.seq} event={event} agents={agents} nodeText={nodeText} onSelect={highlight} />
        ))}
      </ol>
    </section>
  );
}

const FeedEntry = memo(function FeedEntry({
  event,
  agents,
  nodeText,
  onSelect,
}: {
  event: StoredEvent;
  agents: AgentDto[];
  nodeText: (nodeId: string) => string | undefined;
  onSelect: (nodeIds: string[]) => void;
}) {
  const line = describeEvent(event, { agents, nodeText });
  const agent = agents.find((candidate) => candidate.id === event.agent);
  const color = agent?.color ?? (event.agent.startsWith("human:") ? "#c9a227" : "#868e96");
  return (
    <li
      className={`feed__entry feed__entry--${line.tone}${line.quiet ? " feed__entry--quiet" : ""}${line.nodeIds.length ? " feed__entry--linked" : ""}`}
      data-testid="feed-entry"
      data-type={event.type}
      data-seq={event.seq}
      onClick={() => line.nodeIds.length && onSelect(line.nodeIds)}
    >
      <span className="feed__dot" style={{ background: color }} />
      <div className="feed__body">
        <div className="feed__line">
          <strong style={{ color: agent ? color : undefined }}>{event.agent_name}</strong> {line.text}
        </div>
        {line.detail && <div className="feed__detail">{line.detail}</div>}
      </div>
      <time className="feed__time" dateTime={event.timestamp}>
        {timeOf(event.timestamp)}
      </time>
    </li>
  );
});
