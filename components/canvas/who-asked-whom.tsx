"use client";

import { useQuery } from "@tanstack/react-query";
import { useEffect, useMemo, useState } from "react";
import { useShallow } from "zustand/react/shallow";
import { apiRequest } from "@/components/room/api";
import { useRoom } from "@/components/room/room-store";
import type { AgentDto, StoredEvent } from "@/lib/protocol";
import { type AskCounts, type AskEdge, type AskKind, PEOPLE, askEdges, asksIn, tallyAsks } from "@/lib/protocol/asks";

/**
 * What the overlay counts: the server's count of the room's whole history through event
 * `through`, plus the asking in events the page received after it. `stale` when the feed no
 * longer holds every event since `through` (it keeps the newest only): the count must be read
 * again. Until the server's count arrives, the feed's own.
 */
export function liveAskEdges(
  counted: AskCounts | null,
  feed: StoredEvent[],
  agents: Pick<AgentDto, "id" | "persona">[],
): { edges: AskEdge[]; stale: boolean } {
  if (!counted) return { edges: askEdges(feed, agents), stale: false };
  const later = feed.filter((event) => event.seq > counted.through);
  const stale = later.length > 0 && later[0]!.seq > counted.through + 1;
  return { edges: tallyAsks(counted.edges, later.flatMap(asksIn), agents), stale };
}

const KIND_COLORS: Record<AskKind, string> = {
  request: "#1c7ed6",
  question: "#7048e8",
  help: "#2f9e44",
  command: "#c9a227",
  dialogue: "#e8590c",
};

const KIND_LABELS: Record<AskKind, string> = {
  request: "requests",
  question: "questions",
  help: "help",
  command: "messages",
  dialogue: "dialogues",
};

/** The agents as a small graph: who asked whom, how often, live. A toggle on the canvas. */
export function WhoAskedWhom() {
  const [open, setOpen] = useState(false);
  const { feed, agents, roomId } = useRoom(useShallow((state) => ({ feed: state.feed, agents: state.agents, roomId: state.room.id })));
  const { data: counted, refetch } = useQuery({
    queryKey: ["asks", roomId],
    queryFn: () => apiRequest<AskCounts>(`/api/rooms/${roomId}/asks`, "GET"),
    staleTime: Number.POSITIVE_INFINITY,
  });
  const { edges, stale } = useMemo(() => liveAskEdges(counted ?? null, feed, agents), [counted, feed, agents]);
  useEffect(() => {
    if (stale) void refetch();
  }, [stale, refetch]);
  const people = edges.some((edge) => edge.from === PEOPLE || edge.to === PEOPLE);
  const points = useMemo(() => {
    const members = [...agents.map((agent) => ({ id: agent.id, name: agent.name, color: agent.color })), ...(people ? [{ id: PEOPLE, name: "People", color: "#c9a227" }] : [])];
    return members.map((member, index) => {
      const angle = (index / members.length) * Math.PI * 2 - Math.PI / 2;
      return { ...member, x: 160 + Math.cos(angle) * 110, y: 135 + Math.sin(angle) * 100 };
    });
  }, [agents, people]);
  const at = (id: string) => points.find((point) => point.id === id);
  const total = edges.reduce((sum, edge) => sum + edge.count, 0);

  return (
    <div className="who-asked">
      <button type="button" className="button button--small who-asked__toggle" aria-pressed={open} onClick={() => setOpen(!open)} data-testid="who-asked-toggle">
        Who asked whom{total ? ` · ${total}` : ""}
      </button>
      {open && (
        <div className="who-asked__panel" data-testid="who-asked">
          <svg viewBox="0 0 320 270" width="320" height="270" role="img" aria-label="Who asked whom">
            <defs>
              {(Object.keys(KIND_COLORS) as AskKind[]).map((kind) => (
                <marker key={kind} id={`arrow-${kind}`} viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse">
                  <path d="M0,0 L10,5 L0,10 z" fill={KIND_COLORS[kind]} />
                </marker>
              ))}
            </defs>
            {edges.map((edge, index) => {
              const from = at(edge.from);
              const to = at(edge.to);
              if (!from || !to) return null;
              // Edges of several kinds between two agents bend apart, so each stays readable.
              const bend = 18 + (Object.keys(KIND_COLORS).indexOf(edge.kind) * 10);
              const mx = (from.x + to.x) / 2 + ((to.y - from.y) / 200) * bend;
              const my = (from.y + to.y) / 2 - ((to.x - from.x) / 200) * bend;
              const shorten = (x: number, y: number, towardX: number, towardY: number) => {
                const length = Math.hypot(towardX - x, towardY - y) || 1;
                return { x: x + ((towardX - x) / length) * 20, y: y + ((towardY - y) / length) * 20 };
              };
              const start = shorten(from.x, from.y, mx, my);
              const end = shorten(to.x, to.y, mx, my);
              return (
                <g key={index} data-testid="who-asked-edge" data-kind={edge.kind} data-count={edge.count} data-from={from.name} data-to={to.name}>
                  <path d={`M${start.x},${start.y} Q${mx},${my} ${end.x},${end.y}`} fill="none" stroke={KIND_COLORS[edge.kind]} strokeWidth={1.5 + Math.min(edge.count, 6) * 0.5} markerEnd={`url(#arrow-${edge.kind})`} opacity={0.85} />
                  <text x={mx} y={my} fontSize="11" textAnchor="middle" fill={KIND_COLORS[edge.kind]} fontWeight={700}>
                    {edge.count}
                  </text>
                </g>
              );
            })}
            {points.map((point) => (
              <g key={point.id}>
                <circle cx={point.x} cy={point.y} r={16} fill={point.color} />
                <text x={point.x} y={point.y + 30} fontSize="11" textAnchor="middle" fill="#495057">
                  {point.name}
                </text>
              </g>
            ))}
          </svg>
          <div className="who-asked__legend">
            {(Object.keys(KIND_COLORS) as AskKind[]).map((kind) => (
              <span key={kind}>
                <span className="who-asked__swatch" style={{ background: KIND_COLORS[kind] }} /> {KIND_LABELS[kind]}
              </span>
            ))}
          </div>
          {total === 0 && <p className="who-asked__empty">Nobody has asked anyone yet.</p>}
        </div>
      )}
    </div>
  );
}
