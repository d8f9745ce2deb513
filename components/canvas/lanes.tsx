"use client";

import type { FitViewOptions, Node, NodeProps } from "@xyflow/react";
import { memo, useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { Box, Point } from "@/lib/canvas/free-spot";
import { type Lane, type LaneArrangement, arrangeLanes, laneRoute } from "@/lib/canvas/lanes";
import type { CanvasEdgeDto, CanvasNodeDto } from "@/lib/protocol";
import { noteTitle } from "./canvas-names";

interface LaneData extends Record<string, unknown> {
  lane: Lane;
  /** The lane's colour: its agent's, or a neutral one for people and stages. */
  accent: string;
  /** What the lane's last note says, clipped: the summary card's second line. */
  latest: string;
  onToggle: (key: string) => void;
}

export type LaneFlowNode = Node<LaneData, "lane">;

export type Arrange = "free" | "lanes";

/**
 * How the view is fitted to the lanes: clear of the canvas toolbar above (a line of buttons; on a
 * narrow screen it wraps to two or three) and a little way in from the other sides. The lanes are laid
 * out for what is left.
 */
export function lanesFit(viewWidth: number): FitViewOptions {
  const top: `${number}px` = viewWidth < 600 ? "132px" : "72px";
  // On the left, clear of the zoom buttons.
  return { padding: { top, right: "12px", bottom: "12px", left: "60px" }, maxZoom: 1.1 };
}
function fitMargin(viewWidth: number) {
  return { across: 60 + 12 + 4, down: (viewWidth < 600 ? 132 : 72) + 12 + 4 };
}

const ARRANGE_KEY = "parley:canvas-arrange";

/** How the canvas is arranged for this viewer: as its notes were placed, or in lanes; remembered in the browser. */
export function useArrange(): [Arrange, (arrange: Arrange) => void] {
  const [arrange, setArrange] = useState<Arrange>("free");
  useEffect(() => {
    if (window.localStorage.getItem(ARRANGE_KEY) === "lanes") setArrange("lanes");
  }, []);
  const choose = useCallback((next: Arrange) => {
    setArrange(next);
    try {
      window.localStorage.setItem(ARRANGE_KEY, next);
    } catch {
      // A browser that stores nothing still switches, for this visit.
    }
  }, []);
  return [arrange, choose];
}

/** The id of a lane's own node on the canvas: its heading, and its summary card when collapsed. */
function laneNodeId(key: string): string {
  return `lane:${key}`;
}

/** What a screen reader calls a lane's toggle. */
function laneToggleName(lane: Lane, latest: string): string {
  const count = `${lane.noteIds.length} ${lane.noteIds.length === 1 ? "note" : "notes"}`;
  return lane.collapsed
    ? `Expand ${lane.name}'s lane: ${count}${latest ? `, latest “${latest}”` : ""}`
    : `Collapse ${lane.name}'s lane, ${count}`;
}

export interface Lanes {
  arrangement: LaneArrangement;
  laneNodes: LaneFlowNode[];
  /** Where each note or collapsed lane is drawn, by its node id. */
  boxes: Map<string, Box>;
  /** The node a link's end is drawn at: the note, or the card of the collapsed lane that holds it. */
  endOf: (noteId: string) => string;
}

/**
 * The canvas in lanes for a view of `view` pixels, with each viewer's own collapsed lanes. Nothing is
 * written: the lanes are a way of looking at the room, and the room's own positions stay as they were.
 */
export function useLanes(
  enabled: boolean,
  nodes: Record<string, CanvasNodeDto>,
  view: { width: number; height: number },
  accentOf: (node: CanvasNodeDto) => string,
): Lanes | null {
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(new Set());
  const toggle = useCallback(
    (key: string) =>
      setCollapsed((previous) => {
        const next = new Set(previous);
        if (!next.delete(key)) next.add(key);
        return next;
      }),
    [],
  );
  // Resizing the window by a few pixels does not rearrange the room.
  const margin = fitMargin(view.width);
  const width = Math.floor((view.width - margin.across) / 40) * 40;
  const height = Math.floor((view.height - margin.down) / 40) * 40;
  const arrangement = useMemo(
    () => (enabled ? arrangeLanes(Object.values(nodes), { collapsed, view: { width, height } }) : null),
    [enabled, nodes, collapsed, width, height],
  );
  const previous = useRef(new Map<string, LaneFlowNode>());
  return useMemo(() => {
    if (!arrangement) return null;
    const laneNodes = arrangement.lanes.map((lane) => {
      const notes = lane.noteIds.map((id) => nodes[id]).filter((node) => node !== undefined);
      const last = notes.at(-1);
      const latest = last ? noteTitle(last, 48) : "";
      const agentNote = notes.find((node) => node.authorKind === "agent");
      const accent = lane.key.startsWith("author:") && agentNote ? accentOf(agentNote) : "#868e96";
      const box = lane.collapsed ? { ...lane.header, height: lane.body.y + lane.body.height - lane.header.y } : lane.header;
      const id = laneNodeId(lane.key);
      const existing = previous.current.get(id);
      if (
        existing &&
        existing.data.lane.collapsed === lane.collapsed &&
        existing.data.lane.noteIds.length === lane.noteIds.length &&
        existing.data.latest === latest &&
        existing.data.accent === accent &&
        existing.position.x === box.x &&
        existing.position.y === box.y &&
        existing.width === box.width &&
        existing.height === box.height
      ) {
        return existing;
      }
      return {
        id,
        type: "lane" as const,
        position: { x: box.x, y: box.y },
        width: box.width,
        height: box.height,
        draggable: false,
        selectable: false,
        connectable: false,
        focusable: false,
        deletable: false,
        // Read as a group named for its lane; its toggle is the one thing in it to act on.
        ariaRole: "group" as const,
        ariaLabel: `Lane: ${lane.name}`,
        data: { lane, accent, latest, onToggle: toggle },
      };
    });
    previous.current = new Map(laneNodes.map((node) => [node.id, node]));
    const boxes = new Map<string, Box>();
    for (const [id, at] of arrangement.positions) boxes.set(id, { ...at, ...arrangement.cell });
    for (const lane of arrangement.lanes) if (lane.collapsed) boxes.set(laneNodeId(lane.key), lane.body);
    const endOf = (noteId: string) => {
      if (arrangement.positions.has(noteId)) return noteId;
      const key = arrangement.laneOf.get(noteId);
      return key ? laneNodeId(key) : noteId;
    };
    return { arrangement, laneNodes, boxes, endOf };
  }, [arrangement, nodes, accentOf, toggle]);
}

/** A link's ends and route in lanes; null when both ends are folded into the same card. */
export function laneLink(
  edge: Pick<CanvasEdgeDto, "sourceId" | "targetId">,
  lanes: Lanes,
): { source: string; target: string; route: Point[] } | null {
  const source = lanes.endOf(edge.sourceId);
  const target = lanes.endOf(edge.targetId);
  if (source === target) return null;
  const from = lanes.boxes.get(source);
  const to = lanes.boxes.get(target);
  if (!from || !to) return null;
  return { source, target, route: laneRoute(from, to) };
}

/**
 * A lane's heading, with the button that folds the lane into one summary card and opens it again
 * (a 44 px target on screen at any zoom); folded, the card under the heading says what the lane holds.
 */
function LaneNodeComponent({ data, width, height }: NodeProps<LaneFlowNode>) {
  const { lane, accent, latest, onToggle } = data;
  const count = `${lane.noteIds.length} ${lane.noteIds.length === 1 ? "note" : "notes"}`;
  return (
    <div
      className={`lane${lane.collapsed ? " lane--collapsed" : ""}`}
      style={{ width, height, borderColor: accent }}
      data-testid="lane"
      data-lane={lane.key}
      data-collapsed={lane.collapsed}
    >
      <div className="lane__header" style={{ height: lane.header.height, borderColor: accent }}>
        <button
          type="button"
          className="lane__toggle nodrag nopan"
          data-testid="lane-toggle"
          aria-expanded={!lane.collapsed}
          aria-label={laneToggleName(lane, latest)}
          title={lane.collapsed ? "Show this lane's notes" : "Fold this lane into one card"}
          onClick={() => onToggle(lane.key)}
        >
          <span aria-hidden="true">{lane.collapsed ? "▸" : "▾"}</span>
        </button>
        <span className="lane__name" aria-hidden="true">
          <span className="lane__dot" style={{ background: accent }} />
          {lane.name} — {count}
        </span>
      </div>
      {lane.collapsed && (
        <div
          className="lane__summary"
          data-testid="lane-summary"
          aria-hidden="true"
          style={{ top: lane.body.y - lane.header.y, height: lane.body.height, borderColor: accent }}
        >
          <strong>
            {lane.name} — {count}
          </strong>
          {latest && <span className="lane__latest">: latest “{latest}”</span>}
        </div>
      )}
    </div>
  );
}

export const LaneNode = memo(LaneNodeComponent);
