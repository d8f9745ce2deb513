"use client";

import {
  Background,
  BackgroundVariant,
  ConnectionMode,
  Controls,
  MarkerType,
  type EdgeChange,
  MiniMap,
  type NodeChange,
  Panel,
  ReactFlow,
  applyEdgeChanges,
  applyNodeChanges,
  useReactFlow,
  useStore,
} from "@xyflow/react";
import { type CSSProperties, type KeyboardEvent, type RefObject, useCallback, useEffect, useMemo, useRef, useState } from "react";
import { useShallow } from "zustand/react/shallow";
import { type Box, boxOf, shapeOf } from "@/lib/canvas/free-spot";
import { layoutLinks } from "@/lib/canvas/edge-labels";
import type { TidyResult } from "@/lib/canvas/tidy-canvas";
import { planTidy, tidyLayout, tidyNotice } from "@/lib/canvas/tidy-layout";
import { LIMITS } from "@/lib/protocol";
import { apiWrite } from "@/components/room/api";
import { useRoom } from "@/components/room/room-store";
import type { RoomState } from "@/components/room/room-state";
import { HUMAN_NOTE_COLOR, type LabelledFlowEdge, type NoteFlowNode } from "./flow-types";
import { TeamStart } from "@/components/room/team-start";
import { useShowsPast } from "@/components/timeline/timeline-scope";
import { isArrowKey, linkName, nextInDirection, noteName, readingOrder } from "./canvas-names";
import { LabelledEdge } from "./labelled-edge";
import { type LaneFlowNode, LaneNode, laneLink, useArrange, useLanes } from "./lanes";
import { LinkFocus } from "./link-focus";
import { noteHandles } from "./note-handles";
import { NoteNode } from "./note-node";
import { LANE_CELL, READING_ZOOM, placedViewReadable, titleDepth, titleLines } from "@/lib/canvas/lanes";
import type { CanvasNodeDto } from "@/lib/protocol";
import { DELETE_KEYS, FIT_VIEW_OPTIONS, PRO_OPTIONS, miniMapNodeColor, useFlowWrites } from "./stable-flow-props";

type CanvasFlowNode = NoteFlowNode | LaneFlowNode;

const nodeTypes = { note: NoteNode, lane: LaneNode };
const edgeTypes = { labelled: LabelledEdge };

/** Room around a note for what it draws past its box at any zoom: its handles, shadow and highlight. */
const NOTE_MARGIN = 24;

/** The zoom the camera brings a new contribution into view at when following the activity. */
const FOLLOW_ZOOM = 0.9;

/**
 * Writes the view's zoom on the canvas element (`data-zoom`, and `--zoom` in steps of 0.02), so
 * that CSS draws notes for their zoom: re-rendering only this, never every note, as the view moves.
 */
function ZoomMarker({ target, cellHeight }: { target: RefObject<HTMLDivElement | null>; cellHeight: number }) {
  // Rounded down, so that type sized against it never comes out smaller on screen than meant.
  const zoom = useStore((state) => Math.max(0.02, Math.floor(state.transform[2] * 50) / 50));
  useEffect(() => {
    const element = target.current;
    if (!element) return;
    element.style.setProperty("--zoom", String(zoom));
    // As many whole lines of title as a cell of the lanes holds on screen, up to three; a title over a
    // cell too short for one is cut at the cell's edge rather than drawn over the note below.
    const lines = titleLines(cellHeight, zoom);
    element.style.setProperty("--title-lines", String(Math.max(1, lines)));
    element.style.setProperty("--title-lines-fit", String(lines));
    element.dataset.zoom = zoom < READING_ZOOM ? "far" : "near";
    // How far past its box a note may paint: its handles and shadow, and far out its title, which may
    // reach below a short note (see `.react-flow__node-note` in canvas-pan.css).
    element.style.setProperty("--note-overhang", `${NOTE_MARGIN + (zoom < READING_ZOOM ? titleDepth(Math.max(1, lines), zoom) : 0)}px`);
  }, [zoom, target, cellHeight]);
  return null;
}

/**
 * How far below the canvas's top its toolbar ends, followed as it wraps or grows: fitted lanes are kept
 * clear of it. Use for anything fitted to the canvas that the toolbar must not cover.
 */
function useToolbarBottom(canvas: RefObject<HTMLDivElement | null>): number {
  const [bottom, setBottom] = useState(0);
  useEffect(() => {
    const element = canvas.current;
    const panel = element?.querySelector<HTMLElement>(".react-flow__panel.top.left");
    if (!element || !panel) return;
    const measure = () => setBottom(Math.round(panel.getBoundingClientRect().bottom - element.getBoundingClientRect().top));
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(panel);
    observer.observe(element);
    return () => observer.disconnect();
  }, [canvas]);
  return bottom;
}

const selectCanvas = (state: RoomState) => ({
  nodes: state.nodes,
  edges: state.edges,
  agents: state.agents,
  highlighted: state.highlighted,
  canEdit: state.seat !== null && !state.deleted,
  roomId: state.room.id,
});

interface CanvasProps {
  onError: (message: string) => void;
}

/**
 * The shared canvas. Participants add, edit, move, connect and delete notes; every
 * change goes to the server and comes back through the live stream, so all tabs agree.
 * Positions being dragged stay local until the drag ends.
 */
export function RoomCanvas({ onError }: CanvasProps) {
  const { nodes, edges, agents, highlighted, canEdit, roomId } = useRoom(useShallow(selectCanvas));
  const { screenToFlowPosition, fitView, setCenter, getZoom } = useReactFlow();
  const clearHighlight = useRoom((state) => state.highlight);
  // A step through the room's history replaces hundreds of notes at once: there, only the notes in
  // view are drawn. The live room keeps every note in the page, for screen readers to read in order.
  const showsPast = useShowsPast();
  const canvasElement = useRef<HTMLDivElement>(null);

  // Follow the activity: each new contribution is brought into view at a zoom it can be read
  // at. On for spectators, who came to watch; off for participants, who work where they are;
  // off for anyone as soon as they pan or zoom themselves.
  const [following, setFollowing] = useState(!canEdit);
  // Taking a seat makes a spectator a participant: the camera stops following them around.
  const [seatedBefore, setSeatedBefore] = useState(canEdit);
  if (canEdit !== seatedBefore) {
    setSeatedBefore(canEdit);
    if (canEdit) setFollowing(false);
  }
  const nodeCount = Object.keys(nodes).length;
  // The node a note is drawn as: itself, or in lanes the card of the folded lane that holds it.
  const drawnAs = useRef((id: string) => id);
  const seen = useRef(new Set(Object.keys(nodes)));
  useEffect(() => {
    const fresh = Object.keys(nodes).filter((id) => !seen.current.has(id));
    seen.current = new Set(Object.keys(nodes));
    if (!following || fresh.length === 0) return;
    const timer = setTimeout(
      () =>
        void fitView({
          nodes: [...new Set(fresh.map(drawnAs.current))].map((id) => ({ id })),
          duration: 500,
          padding: 0.3,
          minZoom: FOLLOW_ZOOM,
          maxZoom: FOLLOW_ZOOM,
        }),
      60,
    );
    return () => clearTimeout(timer);
  }, [nodes, following, fitView]);

  useEffect(() => {
    if (highlighted.length === 0) return;
    void fitView({
      nodes: [...new Set(highlighted.map(drawnAs.current))].map((id) => ({ id })),
      duration: 400,
      padding: 0.6,
      maxZoom: 1.2,
    });
    const timer = setTimeout(() => clearHighlight([]), 4000);
    return () => clearTimeout(timer);
  }, [highlighted, fitView, clearHighlight]);
  const [edgeLabel, setEdgeLabel] = useState("relates to");
  const [flowNodes, setFlowNodes] = useState<NoteFlowNode[]>([]);
  const [flowEdges, setFlowEdges] = useState<LabelledFlowEdge[]>([]);

  const agentColors = useMemo(() => new Map(agents.map((agent) => [agent.id, agent.color])), [agents]);

  // Lanes: a way of looking at the room, one lane per author or brainstorm stage, every note in a
  // cell of the same size; the room's own positions are left as they are.
  const viewWidth = useStore((state) => state.width);
  const viewHeight = useStore((state) => state.height);
  // A room opens in lanes when its notes as placed cannot be read at fit view; asked once, as the
  // canvas first knows its size.
  const [arrange, setArrange] = useArrange(
    roomId,
    viewWidth > 0 && viewHeight > 0 ? () => placedViewReadable(Object.values(nodes), { width: viewWidth, height: viewHeight }) : null,
  );
  const accentOf = useCallback(
    (node: CanvasNodeDto) => (node.authorKind === "agent" ? (agentColors.get(node.authorId) ?? "#495057") : "#c9a227"),
    [agentColors],
  );
  const toolbarBottom = useToolbarBottom(canvasElement);
  const lanes = useLanes(arrange === "lanes", nodes, { width: viewWidth, height: viewHeight }, accentOf, toolbarBottom);
  useEffect(() => {
    drawnAs.current = lanes ? lanes.endOf : (id) => id;
  }, [lanes]);
  const fitOptions = lanes ? lanes.fitOptions : FIT_VIEW_OPTIONS;
  // The view is fitted afresh when the arrangement changes (the viewer's choice, or a crowded room
  // opening in lanes) and, on a narrow view, when a lane is opened: it brings that lane into view.
  const fitted = useRef({ arrange, request: 0 });
  const fitRequest = lanes?.fitRequest ?? 0;
  useEffect(() => {
    if (fitted.current.arrange === arrange && fitted.current.request === fitRequest) return;
    fitted.current = { arrange, request: fitRequest };
    void fitView({ ...fitOptions, duration: 300 });
  }, [arrange, fitRequest, fitOptions, fitView]);

  const write = useCallback(
    (path: string, method: string, body?: unknown) =>
      apiWrite(`/api/rooms/${roomId}${path}`, method, body).catch((error: Error) => onError(error.message)),
    [roomId, onError],
  );

  const flowWrites = useFlowWrites(write, edgeLabel, setFollowing);

  const saveText = useCallback((nodeId: string, text: string) => void write(`/nodes/${nodeId}`, "PATCH", { text }), [write]);

  useEffect(() => {
    setFlowNodes((previous) => {
      const byId = new Map(previous.map((node) => [node.id, node]));
      const highlightSet = new Set(highlighted);
      // The order of the array is the order Tab visits the notes in.
      return readingOrder(Object.values(nodes)).map((node) => {
        const existing = byId.get(node.id);
        const accent = node.authorKind === "agent" ? (agentColors.get(node.authorId) ?? "#495057") : "#c9a227";
        const highlightedNow = highlightSet.has(node.id);
        // The same note drawn the same way keeps its object, so React Flow leaves it alone: one
        // change on a crowded canvas redraws one note, not all of them.
        if (
          existing &&
          existing.data.node === node &&
          existing.data.accent === accent &&
          existing.data.editable === canEdit &&
          existing.data.highlighted === highlightedNow &&
          existing.data.onSaveText === saveText
        ) {
          return existing;
        }
        // Until the browser has drawn it, a note has the size its text should take: the canvas draws
        // only the notes in view, and one out of view must still be found, fitted into view and linked to.
        const measured =
          existing?.measured?.width && existing.measured.height
            ? { width: existing.measured.width, height: existing.measured.height }
            : boxOf(shapeOf(node));
        return {
          id: node.id,
          type: "note" as const,
          position: existing?.dragging ? existing.position : { x: node.x, y: node.y },
          selected: existing?.selected,
          dragging: existing?.dragging,
          measured: { width: measured.width, height: measured.height },
          handles: noteHandles(measured),
          ariaLabel: noteName(node),
          data: { node, accent, editable: canEdit, highlighted: highlightedNow, onSaveText: saveText },
        };
      });
    });
  }, [nodes, agentColors, canEdit, highlighted, saveText]);

  // In lanes, each shown note at its cell, lane by lane (the order Tab visits them in), each
  // lane's heading before its notes; a moved note is a new object, an unmoved one keeps its own.
  const placedBefore = useRef(new Map<string, { from: NoteFlowNode; to: NoteFlowNode }>());
  const shownNotes = useMemo(() => {
    if (!lanes) return flowNodes;
    const byId = new Map(flowNodes.map((node) => [node.id, node]));
    const placed = new Map<string, { from: NoteFlowNode; to: NoteFlowNode }>();
    const shown: NoteFlowNode[] = [];
    for (const lane of lanes.arrangement.lanes) {
      for (const id of lane.noteIds) {
        const node = byId.get(id);
        const at = lanes.arrangement.positions.get(id);
        if (!node || !at) continue;
        const before = placedBefore.current.get(id);
        const to =
          before && before.from === node && before.to.position.x === at.x && before.to.position.y === at.y
            ? before.to
            : { ...node, position: at };
        placed.set(id, { from: node, to });
        shown.push(to);
      }
    }
    placedBefore.current = placed;
    return shown;
  }, [flowNodes, lanes]);
  const shownNodes = useMemo<CanvasFlowNode[]>(() => {
    if (!lanes) return flowNodes;
    const notesByLane = new Map<string, NoteFlowNode[]>();
    for (const note of shownNotes) {
      const key = lanes.arrangement.laneOf.get(note.id) ?? "";
      notesByLane.set(key, [...(notesByLane.get(key) ?? []), note]);
    }
    return lanes.laneNodes.flatMap((laneNode) => [laneNode, ...(notesByLane.get(laneNode.data.lane.key) ?? [])]);
  }, [flowNodes, shownNotes, lanes]);

  // Where each note is drawn: its measured box once the browser has drawn it, else an estimate.
  const boxes = useMemo(
    () =>
      lanes
        ? new Map<string, Box>(shownNotes.map((node) => [node.id, { ...node.position, ...lanes.arrangement.cell }]))
        : new Map<string, Box>(
            flowNodes.map((flowNode) => [
              flowNode.id,
              flowNode.measured?.width && flowNode.measured.height
                ? { ...flowNode.position, width: flowNode.measured.width, height: flowNode.measured.height }
                : boxOf(shapeOf({ ...flowNode.data.node, ...flowNode.position })),
            ]),
          ),
    [flowNodes, shownNotes, lanes],
  );
  const links = useMemo(() => (lanes ? new Map() : layoutLinks(boxes, Object.values(edges))), [boxes, edges, lanes]);

  useEffect(() => {
    setFlowEdges((previous) => {
      const byId = new Map(previous.map((edge) => [edge.id, edge]));
      return Object.values(edges).map((edge) => {
        const accent = edge.authorKind === "agent" ? (agentColors.get(edge.authorId) ?? "#868e96") : "#868e96";
        const layout = links.get(edge.id);
        const name = linkName(edge, nodes);
        const existing = byId.get(edge.id);
        const sourceHandle = layout?.source ?? "bottom";
        const targetHandle = layout?.target ?? "top";
        if (
          existing &&
          existing.data?.edge === edge &&
          existing.data.accent === accent &&
          existing.ariaLabel === name &&
          existing.sourceHandle === sourceHandle &&
          existing.targetHandle === targetHandle &&
          existing.data.labelAt?.x === layout?.label?.x &&
          existing.data.labelAt?.y === layout?.label?.y
        ) {
          return existing;
        }
        return {
          id: edge.id,
          type: "labelled" as const,
          source: edge.sourceId,
          target: edge.targetId,
          sourceHandle,
          targetHandle,
          selected: existing?.selected,
          ariaLabel: name,
          style: { stroke: accent, strokeWidth: 2 },
          markerEnd: { type: MarkerType.ArrowClosed, color: accent, width: 16, height: 16 },
          data: { edge, accent, labelAt: layout?.label },
        };
      });
    });
  }, [edges, nodes, links, agentColors]);

  // In lanes, links run along the gaps between the notes, and a collapsed lane's links end at its card.
  const shownEdges = useMemo(() => {
    if (!lanes) return flowEdges;
    return flowEdges.flatMap((flowEdge) => {
      const routed = flowEdge.data && laneLink(flowEdge.data.edge, lanes);
      if (!routed || !flowEdge.data) return [];
      return [
        { ...flowEdge, source: routed.source, target: routed.target, data: { ...flowEdge.data, labelAt: undefined, route: routed.route } },
      ];
    });
  }, [flowEdges, lanes]);

  const onNodesChange = useCallback((changes: NodeChange<CanvasFlowNode>[]) => {
    // A lane's heading is drawn from the notes, never changed on its own.
    const noteChanges = changes.filter(
      (change): change is NodeChange<NoteFlowNode> =>
        change.type !== "remove" && change.type !== "add" && change.type !== "replace" && !change.id.startsWith("lane:"),
    );
    const resized = new Set(noteChanges.flatMap((change) => (change.type === "dimensions" ? [change.id] : [])));
    setFlowNodes((current) =>
      applyNodeChanges(noteChanges, current).map((node) =>
        // A note measured at a new size has its links end at the sides of that size.
        resized.has(node.id) && node.measured?.width && node.measured.height
          ? { ...node, handles: noteHandles({ width: node.measured.width, height: node.measured.height }) }
          : node,
      ),
    );
  }, []);
  const onEdgesChange = useCallback(
    (changes: EdgeChange<LabelledFlowEdge>[]) =>
      setFlowEdges((current) =>
        applyEdgeChanges(
          changes.filter((change) => change.type !== "remove"),
          current,
        ),
      ),
    [],
  );

  const addNoteAt = useCallback(
    (position: { x: number; y: number }) =>
      void write("/nodes", "POST", { text: "", x: Math.round(position.x), y: Math.round(position.y), color: HUMAN_NOTE_COLOR }),
    [write],
  );

  const addNoteInView = () => {
    const pane = document.querySelector('[data-testid="canvas"]')?.getBoundingClientRect();
    const center = pane ? screenToFlowPosition({ x: pane.left + pane.width / 2, y: pane.top + pane.height / 2 }) : { x: 0, y: 0 };
    // The server puts it in the free spot nearest the middle of the view.
    void write("/nodes", "POST", {
      text: "",
      near: { x: Math.round(center.x - 145), y: Math.round(center.y - 60) },
      color: HUMAN_NOTE_COLOR,
    });
  };

  const [tidying, setTidying] = useState(false);
  const [tidyMessage, setTidyMessage] = useState<string | null>(null);
  const tidy = async () => {
    setTidying(true);
    setTidyMessage(null);
    try {
      // One tidy moves at most LIMITS.tidyNodes notes: on a bigger canvas, the newest that many.
      const plan = planTidy(
        [...boxes].map(([id, box]) => ({ id, box, createdAt: nodes[id]?.createdAt ?? "" })),
        LIMITS.tidyNodes,
      );
      const placed = await tidyLayout(
        plan.ids.map((id) => ({ id, width: boxes.get(id)!.width, height: boxes.get(id)!.height })),
        Object.values(edges).map((edge) => ({ id: edge.id, sourceId: edge.sourceId, targetId: edge.targetId, label: edge.label })),
        plan.start,
      );
      const positions = [...placed].map(([nodeId, at]) => ({ nodeId, ...at }));
      const { gone } = await apiWrite<TidyResult>(`/api/rooms/${roomId}/canvas/tidy`, "POST", { positions });
      setTidyMessage(tidyNotice(plan, gone.length));
      setTimeout(() => void fitView({ duration: 500, padding: 0.15 }), 120);
    } catch (error) {
      onError(error instanceof Error ? error.message : String(error));
    } finally {
      setTidying(false);
    }
  };

  const followButton = (
    <button
      type="button"
      className="button canvas__follow"
      aria-pressed={following}
      data-testid="follow-activity"
      title="Bring each new contribution into view as it arrives; moving the view yourself stops it"
      onClick={() => setFollowing((on) => !on)}
    >
      {following ? "Following" : "Follow"}
    </button>
  );

  const lanesButton = (
    <button
      type="button"
      className="button canvas__lanes"
      aria-pressed={arrange === "lanes"}
      data-testid="arrange-lanes"
      title="Show the notes in lanes, one for each author or stage, every title readable with the whole room in view"
      onClick={() => setArrange(arrange === "lanes" ? "free" : "lanes")}
    >
      Lanes
    </button>
  );

  const selectedNodes = flowNodes.filter((node) => node.selected);
  const selectedEdge = flowEdges.find((edge) => edge.selected);

  // Only the notes in view are drawn. Focusing one that is not brings it into view first, at the
  // same zoom, and focuses it once it is drawn there.
  const focusNote = (id: string) => {
    const drawn = () => canvasElement.current?.querySelector<HTMLElement>(`.react-flow__node[data-id="${CSS.escape(id)}"]`);
    const element = drawn();
    if (element) {
      element.focus();
      return;
    }
    const box = boxes.get(id);
    if (!box) return;
    void setCenter(box.x + box.width / 2, box.y + box.height / 2, { zoom: getZoom() });
    let frames = 0;
    const focusWhenDrawn = () => {
      const note = drawn();
      if (note) note.focus();
      else if (++frames < 30) requestAnimationFrame(focusWhenDrawn);
    };
    requestAnimationFrame(focusWhenDrawn);
  };

  // Arrow keys move from a focused note to the nearest one that way; a selected note a
  // participant may move is moved by them instead, as the canvas always did. Tab goes on to the
  // next note in reading order even when that note is out of view, and so not drawn yet.
  const moveFocus = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const target = event.target as HTMLElement;
    if (!target.classList.contains("react-flow__node")) return;
    if (event.key === "Tab") {
      const index = shownNotes.findIndex((node) => node.id === target.dataset.id);
      const next = index === -1 ? undefined : shownNotes[index + (event.shiftKey ? -1 : 1)];
      if (!next || canvasElement.current?.querySelector(`.react-flow__node[data-id="${CSS.escape(next.id)}"]`)) return;
      event.preventDefault();
      focusNote(next.id);
      return;
    }
    if (!isArrowKey(event.key) || event.shiftKey) return;
    const from = shownNotes.find((node) => node.id === target.dataset.id);
    if (!from || (from.selected && canEdit && !lanes)) return;
    const centre = (node: NoteFlowNode) => {
      const box = boxes.get(node.id);
      return { id: node.id, x: node.position.x + (box?.width ?? 0) / 2, y: node.position.y + (box?.height ?? 0) / 2 };
    };
    const next = nextInDirection(centre(from), shownNotes.map(centre), event.key);
    if (!next) return;
    event.preventDefault();
    focusNote(next.id);
  };

  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: arrow keys pressed on the focusable notes inside bubble up to here.
    <div
      className="canvas"
      data-testid="canvas"
      ref={canvasElement}
      onKeyDown={moveFocus}
      data-following={following}
      data-arrange={lanes ? "lanes" : "free"}
      style={
        lanes
          ? ({
              "--lane-cell-width": `${lanes.arrangement.cell.width}px`,
              "--lane-cell-height": `${lanes.arrangement.cell.height}px`,
            } as CSSProperties)
          : undefined
      }
    >
      <LinkFocus target={canvasElement} links={shownEdges} selected={selectedNodes.map((node) => node.id)} />
      <ReactFlow<CanvasFlowNode, LabelledFlowEdge>
        nodes={shownNodes}
        edges={shownEdges}
        nodeTypes={nodeTypes}
        edgeTypes={edgeTypes}
        onNodesChange={onNodesChange}
        onEdgesChange={onEdgesChange}
        connectionMode={ConnectionMode.Loose}
        nodesDraggable={canEdit && !lanes}
        nodesConnectable={canEdit}
        deleteKeyCode={canEdit ? DELETE_KEYS : null}
        onNodeDragStop={flowWrites.onNodeDragStop}
        onNodesDelete={flowWrites.onNodesDelete}
        onEdgesDelete={flowWrites.onEdgesDelete}
        onConnect={flowWrites.onConnect}
        onDoubleClick={(event) => {
          if (!canEdit) return;
          const target = event.target as HTMLElement;
          if (!target.classList.contains("react-flow__pane")) return;
          addNoteAt(screenToFlowPosition({ x: event.clientX, y: event.clientY }));
        }}
        zoomOnDoubleClick={false}
        onMoveStart={flowWrites.onMoveStart}
        edgesFocusable={false}
        onlyRenderVisibleElements={showsPast}
        autoPanOnNodeFocus
        fitView
        fitViewOptions={fitOptions}
        minZoom={0.1}
        proOptions={PRO_OPTIONS}
      >
        <ZoomMarker target={canvasElement} cellHeight={lanes?.arrangement.cell.height ?? LANE_CELL.height} />
        <Background variant={BackgroundVariant.Dots} gap={22} size={1.2} color="#ced4da" />
        <Controls showInteractive={false} fitViewOptions={lanes ? fitOptions : undefined} />
        <MiniMap<CanvasFlowNode> pannable zoomable nodeColor={miniMapNodeColor} nodeStrokeWidth={2} maskColor="rgba(248, 249, 250, 0.7)" />
        <Panel position="top-left">
          {canEdit ? (
            <div className="toolbar" data-testid="canvas-toolbar">
              <button type="button" className="button button--primary" data-testid="add-note" onClick={addNoteInView}>
                + Note
              </button>
              {followButton}
              {lanesButton}
              {nodeCount > 1 && !lanes && (
                <button
                  type="button"
                  className="button"
                  data-testid="tidy-canvas"
                  disabled={tidying}
                  title="Lay the canvas out afresh: linked notes in rows from left to right, nothing overlapping"
                  onClick={() => void tidy()}
                >
                  {tidying ? "Tidying…" : "Tidy"}
                </button>
              )}
              {tidyMessage && (
                <span className="toolbar__notice" role="status" data-testid="tidy-notice">
                  {tidyMessage}
                </span>
              )}
              <label className="toolbar__field">
                <span>New links read</span>
                <input
                  data-testid="edge-label-input"
                  value={edgeLabel}
                  maxLength={LIMITS.edgeLabel}
                  onChange={(event) => setEdgeLabel(event.target.value)}
                />
              </label>
              {selectedEdge && (
                <EdgeEditor
                  key={selectedEdge.id}
                  label={selectedEdge.data?.edge.label ?? ""}
                  onSave={(label) => void write(`/edges/${selectedEdge.id}`, "PATCH", { label })}
                  onDelete={() => void write(`/edges/${selectedEdge.id}`, "DELETE")}
                />
              )}
              {selectedNodes.length > 0 && (
                <button
                  type="button"
                  className="button button--danger"
                  data-testid="delete-selected"
                  onClick={() => {
                    for (const node of selectedNodes) void write(`/nodes/${node.id}`, "DELETE");
                  }}
                >
                  Delete {selectedNodes.length === 1 ? "note" : `${selectedNodes.length} notes`}
                </button>
              )}
            </div>
          ) : (
            <div className="toolbar toolbar--readonly">
              <span data-testid="spectator-badge">Watching as a spectator — take a seat to add notes</span>
              {followButton}
              {lanesButton}
            </div>
          )}
        </Panel>
        {Object.keys(nodes).length === 0 && (
          <Panel position="top-center" className="canvas__empty">
            <TeamStart canEdit={canEdit} />
          </Panel>
        )}
      </ReactFlow>
    </div>
  );
}

function EdgeEditor({ label, onSave, onDelete }: { label: string; onSave: (label: string) => void; onDelete: () => void }) {
  const [draft, setDraft] = useState(label);
  return (
    <form
      className="toolbar__field"
      onSubmit={(event) => {
        event.preventDefault();
        onSave(draft.trim());
      }}
    >
      <span>Link label</span>
      <input data-testid="selected-edge-label" value={draft} maxLength={LIMITS.edgeLabel} onChange={(e) => setDraft(e.target.value)} />
      <button type="submit" className="button" data-testid="save-edge-label">
        Save
      </button>
      <button type="button" className="button button--danger" data-testid="delete-edge" onClick={onDelete}>
        Delete link
      </button>
    </form>
  );
}
