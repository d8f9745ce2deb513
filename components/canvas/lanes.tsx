"use client";

import type { FitViewOptions, Node, NodeProps } from "@xyflow/react";
import { memo, useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { Box, Point } from "@/lib/canvas/free-spot";
import { type Lane, type LaneArrangement, STACKED_MAX_ZOOM, arrangeLanes, laneRoute } from "@/lib/canvas/lanes";
import type { CanvasEdgeDto, CanvasNodeDto } from "@/lib/protocol";
import { noteTitle } from "./canvas-names";

interface LaneData extends Record<string, unknown> {
  lane: Lane;
  /** The lane's colour: its agent's, or a neutral one for people and stages. */
  accent: string;
  /** What the lane's last note says, clipped: the summary card's second line. */
  latest: string;
  /** Folded into one card that holds its heading (stacked lanes), rather than a heading over a card. */
  card: boolean;
  onToggle: (key: string) => void;
}

export type LaneFlowNode = Node<LaneData, "lane">;

export type Arrange = "free" | "lanes";

/** Below this width the canvas wraps its toolbar and stacks its lanes one below another. */
const NARROW = 600;

/**
 * The canvas's margins around fitted lanes: clear of the toolbar above (`toolbarBottom`, where it ends
 * below the canvas's top: a line of buttons, or two or three where it wraps on a narrow screen) and of
 * the zoom buttons on the left.
 */
function fitMargin(viewWidth: number, toolbarBottom: number) {
  return { top: Math.max(viewWidth < NARROW ? 132 : 72, Math.ceil(toolbarBottom) + 10), right: 12, bottom: 12, left: 60 };
}

const ARRANGE_KEY = "parley:canvas-arrange";

/**
 * How the canvas is arranged for this viewer: as its notes were placed, or in lanes. A viewer's own
 * choice is remembered in the browser for each room; until they make one, a room opens as placed when
 * its placed notes can be read at fit view and in lanes when they cannot (`readable`, asked once, when
 * the canvas first knows its size; null until then). The room does not switch by itself later on.
 */
export function useArrange(roomId: string, readable: (() => boolean) | null): [Arrange, (arrange: Arrange) => void] {
  const key = `${ARRANGE_KEY}:${roomId}`;
  const [chosen, setChosen] = useState<Arrange | null>(null);
  useEffect(() => {
    let stored: string | null = null;
    try {
      stored = window.localStorage.getItem(key);
    } catch {
      // A browser that stores nothing opens each room by its default.
    }
    setChosen(stored === "lanes" || stored === "free" ? stored : null);
  }, [key]);
  const [opened, setOpened] = useState<Arrange | null>(null);
  if (opened === null && readable) setOpened(readable() ? "free" : "lanes");
  const choose = useCallback(
    (next: Arrange) => {
      setChosen(next);
      try {
        window.localStorage.setItem(key, next);
      } catch {
        // A browser that stores nothing still switches, for this visit.
      }
    },
    [key],
  );
  return [chosen ?? opened ?? "free", choose];
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
  /**
   * How the view is fitted to the lanes: clear of the toolbar and the zoom buttons. Stacked lanes
   * taller than the view are fitted by their width, from the top (or from the lane just opened) down.
   */
  fitOptions: FitViewOptions;
  /** Counts the lanes opened on a narrow view: each brings the lane opened into view. */
  fitRequest: number;
}

/**
 * The canvas in lanes for a view of `view` pixels, with each viewer's own collapsed lanes. Nothing is
 * written: the lanes are a way of looking at the room, and the room's own positions stay as they were.
 * On a narrow view the lanes are stacked and open one at a time: they start folded, and opening one
 * folds the one open before.
 */
export function useLanes(
  enabled: boolean,
  nodes: Record<string, CanvasNodeDto>,
  view: { width: number; height: number },
  accentOf: (node: CanvasNodeDto) => string,
  toolbarBottom: number,
): Lanes | null {
  const stacked = view.width > 0 && view.width < NARROW;
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(new Set());
  const [open, setOpen] = useState<string | null>(null);
  const [fitRequest, setFitRequest] = useState(0);
  const toggle = useCallback(
    (key: string) => {
      if (stacked) {
        setOpen((previous) => (previous === key ? null : key));
        setFitRequest((count) => count + 1);
        return;
      }
      setCollapsed((previous) => {
        const next = new Set(previous);
        if (!next.delete(key)) next.add(key);
        return next;
      });
    },
    [stacked],
  );
  // Resizing the window by a few pixels does not rearrange the room.
  // The toolbar's own height (it grows while a note is selected) moves the fitting, never the lanes.
  const margin = fitMargin(view.width, 0);
  const clearTop = fitMargin(view.width, toolbarBottom).top;
  const width = Math.floor((view.width - margin.left - margin.right - 4) / 40) * 40;
  const height = Math.floor((view.height - margin.top - margin.bottom - 4) / 40) * 40;
  const arrangement = useMemo(
    () =>
      enabled
        ? arrangeLanes(Object.values(nodes), stacked ? { view: { width, height }, stacked, open } : { view: { width, height }, collapsed })
        : null,
    [enabled, nodes, collapsed, open, stacked, width, height],
  );
  const previous = useRef(new Map<string, LaneFlowNode>());
  const laneNodes = useMemo(() => {
    if (!arrangement) return [];
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
        existing.data.lane.header.height === lane.header.height &&
        existing.data.card === arrangement.stacked &&
        existing.data.latest === latest &&
        existing.data.accent === accent &&
        existing.data.onToggle === toggle &&
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
        data: { lane, accent, latest, card: arrangement.stacked, onToggle: toggle },
      };
    });
    previous.current = new Map(laneNodes.map((node) => [node.id, node]));
    return laneNodes;
  }, [arrangement, nodes, accentOf, toggle]);
  const fitOptions = useMemo(
    () => (arrangement ? fitFor(arrangement, open, { width: view.width, height: view.height }, clearTop) : {}),
    [arrangement, open, view.width, view.height, clearTop],
  );
  return useMemo(() => {
    if (!arrangement) return null;
    const boxes = new Map<string, Box>();
    for (const [id, at] of arrangement.positions) boxes.set(id, { ...at, ...arrangement.cell });
    for (const lane of arrangement.lanes) if (lane.collapsed) boxes.set(laneNodeId(lane.key), lane.body);
    const endOf = (noteId: string) => {
      if (arrangement.positions.has(noteId)) return noteId;
      const key = arrangement.laneOf.get(noteId);
      return key ? laneNodeId(key) : noteId;
    };
    return { arrangement, laneNodes, boxes, endOf, fitOptions, fitRequest };
  }, [arrangement, laneNodes, fitOptions, fitRequest]);
}

/**
 * The fitting for an arrangement. Side by side, the whole of it. Stacked, the lanes from the top (or,
 * when the cards folded above it would take more than half the screen, from the open lane's heading)
 * down as far as fits the view at the width's zoom: the view is moved down the rest, never shrunk to it.
 */
function fitFor(
  arrangement: LaneArrangement,
  open: string | null,
  view: { width: number; height: number },
  clearTop: number,
): FitViewOptions {
  const margin = { ...fitMargin(view.width, 0), top: clearTop };
  const padding = { top: `${margin.top}px`, right: `${margin.right}px`, bottom: `${margin.bottom}px`, left: `${margin.left}px` } as const;
  if (!arrangement.stacked) return { padding, maxZoom: 1.1 };
  const across = arrangement.lanes[0]?.header.width ?? 1;
  const zoom = Math.min(STACKED_MAX_ZOOM, (view.width - margin.left - margin.right) / across);
  const first = arrangement.lanes[0];
  if (!first) return { padding, maxZoom: STACKED_MAX_ZOOM };
  const screen = (view.height - margin.top - margin.bottom) / zoom;
  // The cards folded above the open lane stay in view while they leave it half the screen.
  const opened = arrangement.lanes.find((lane) => lane.key === open);
  const start = opened && opened.header.y - first.header.y > screen / 2 ? opened : first;
  const top = start.header.y;
  const bottom = top + screen;
  const within = (box: Box) => box.y >= top - 1 && box.y + box.height <= bottom;
  const fitted: { id: string }[] = [];
  for (const lane of arrangement.lanes) {
    const box = lane.collapsed ? lane.body : lane.header;
    if (lane === start || within(box)) fitted.push({ id: laneNodeId(lane.key) });
    for (const id of lane.noteIds) {
      const at = arrangement.positions.get(id);
      if (at && within({ ...at, ...arrangement.cell })) fitted.push({ id });
    }
  }
  return { padding, maxZoom: STACKED_MAX_ZOOM, nodes: fitted };
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
  const { lane, accent, latest, card, onToggle } = data;
  const count = `${lane.noteIds.length} ${lane.noteIds.length === 1 ? "note" : "notes"}`;
  const toggle = (
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
  );
  const summary = (
    <>
      <strong>
        {lane.name} — {count}
      </strong>
      {latest && <span className="lane__latest">: latest “{latest}”</span>}
    </>
  );
  if (card && lane.collapsed) {
    return (
      <div
        className="lane lane--collapsed lane--card"
        style={{ width, height, borderColor: accent }}
        data-testid="lane"
        data-lane={lane.key}
        data-collapsed
      >
        {toggle}
        <div className="lane__summary" data-testid="lane-summary" aria-hidden="true">
          {summary}
        </div>
      </div>
    );
  }
  return (
    <div
      className={`lane${lane.collapsed ? " lane--collapsed" : ""}`}
      style={{ width, height, borderColor: accent }}
      data-testid="lane"
      data-lane={lane.key}
      data-collapsed={lane.collapsed}
    >
      <div className="lane__header" style={{ height: lane.header.height, borderColor: accent }}>
        {toggle}
        <span className="lane__name" aria-hidden="true">
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
          {summary}
        </div>
      )}
    </div>
  );
}

export const LaneNode = memo(LaneNodeComponent);
