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

type Point = { id: string; name: string; x: number; y: number };

const CENTER = { x: 160, y: 135 };

/**
 * One edge as drawn: a curve from one member to the other that bends by its kind (so that edges of
 * several kinds between two members stay apart), ending short of the circles, and where its count
 * goes: on the curve, halfway along.
 */
function arrowOf(
  edge: AskEdge,
  points: Point[],
): { edge: AskEdge; from: Point; to: Point; path: string; label: { x: number; y: number } } | null {
  const from = points.find((point) => point.id === edge.from);
  const to = points.find((point) => point.id === edge.to);
  if (!from || !to) return null;
  // Bent toward the ring's middle, where no name is written; the two directions between a pair
  // bend by different amounts.
  const bend = 18 + Object.keys(KIND_COLORS).indexOf(edge.kind) * 10 + (edge.from < edge.to ? 0 : 6);
  const length = Math.hypot(to.x - from.x, to.y - from.y) || 1;
  const [nx, ny] = [-(to.y - from.y) / length, (to.x - from.x) / length];
  const [cx, cy] = [(from.x + to.x) / 2, (from.y + to.y) / 2];
  const inward = nx * (CENTER.x - cx) + ny * (CENTER.y - cy) >= 0 ? 1 : -1;
  const mx = cx + nx * bend * inward;
  const my = cy + ny * bend * inward;
  const shorten = (x: number, y: number) => {
    const length = Math.hypot(mx - x, my - y) || 1;
    return { x: x + ((mx - x) / length) * 20, y: y + ((my - y) / length) * 20 };
  };
  const start = shorten(from.x, from.y);
  const end = shorten(to.x, to.y);
  // A quadratic curve's point at t = ½: a quarter of each end and half of its control point.
  const label = { x: (start.x + end.x) / 4 + mx / 2, y: (start.y + end.y) / 4 + my / 2 };
  return { edge, from, to, path: `M${start.x},${start.y} Q${mx},${my} ${end.x},${end.y}`, label };
}

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
    const members = [
      ...agents.map((agent) => ({ id: agent.id, name: agent.name, color: agent.color })),
      ...(people ? [{ id: PEOPLE, name: "People", color: "#c9a227" }] : []),
    ];
    return members.map((member, index) => {
      const angle = (index / members.length) * Math.PI * 2 - Math.PI / 2;
      return { ...member, x: CENTER.x + Math.cos(angle) * 110, y: CENTER.y + Math.sin(angle) * 100 };
    });
  }, [agents, people]);
  const arrows = useMemo(() => edges.flatMap((edge) => arrowOf(edge, points) ?? []), [edges, points]);
  const total = edges.reduce((sum, edge) => sum + edge.count, 0);

  return (
    <div className="who-asked">
      <button
        type="button"
        className="button button--small who-asked__toggle"
        aria-pressed={open}
        onClick={() => setOpen(!open)}
        data-testid="who-asked-toggle"
      >
        Who asked whom{total ? ` · ${total}` : ""}
      </button>
      {open && (
        <div className="who-asked__panel" data-testid="who-asked">
          <svg viewBox="0 0 320 270" width="320" height="270" role="img" aria-label="Who asked whom">
            <defs>
              {(Object.keys(KIND_COLORS) as AskKind[]).map((kind) => (
                <marker
                  key={kind}
                  id={`arrow-${kind}`}
                  viewBox="0 0 10 10"
                  refX="9"
                  refY="5"
                  markerWidth="6"
                  markerHeight="6"
                  orient="auto-start-reverse"
                >
                  <path d="M0,0 L10,5 L0,10 z" fill={KIND_COLORS[kind]} />
                </marker>
              ))}
            </defs>
            {arrows.map(({ edge, path }, index) => (
              <path
                // biome-ignore lint/suspicious/noArrayIndexKey: arrows are redrawn whole from one list.
                key={index}
                d={path}
                fill="none"
                stroke={KIND_COLORS[edge.kind]}
                strokeWidth={1.5 + Math.min(edge.count, 6) * 0.5}
                markerEnd={`url(#arrow-${edge.kind})`}
                opacity={0.85}
              />
            ))}
            {points.map((point) => (
              <g key={point.id}>
                <circle cx={point.x} cy={point.y} r={16} fill={point.color} />
                {/* Outside the ring: above a member in its upper half, below one in its lower half. */}
                <text
                  x={point.x}
                  y={point.y < CENTER.y - 1 ? point.y - 22 : point.y + 30}
                  fontSize="11"
                  textAnchor="middle"
                  fill="#495057"
                  className="who-asked__halo"
                >
                  {point.name}
                </text>
              </g>
            ))}
            {/* Counts last, over lines and names, so that none is hidden. */}
            {arrows.map(({ edge, from, to, label }, index) => (
              <text
                // biome-ignore lint/suspicious/noArrayIndexKey: arrows are redrawn whole from one list.
                key={index}
                x={label.x}
                y={label.y + 4}
                fontSize="11"
                textAnchor="middle"
                fill={KIND_COLORS[edge.kind]}
                fontWeight={700}
                className="who-asked__halo"
                data-testid="who-asked-edge"
                data-kind={edge.kind}
                data-count={edge.count}
                data-from={from.name}
                data-to={to.name}
              >
                {edge.count}
              </text>
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
