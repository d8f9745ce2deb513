"use client";

import { BaseEdge, EdgeLabelRenderer, type EdgeProps, getStraightPath } from "@xyflow/react";
import { memo } from "react";
import { roundedPath } from "@/lib/canvas/lanes";
import type { LabelledFlowEdge } from "./flow-types";

/** How far a label may sit from its link before a dashed leader joins them. */
const LEADER_FROM = 24;

/** The distance from `point` to the segment from `from` to `to`. */
function distanceToSegment(point: { x: number; y: number }, from: { x: number; y: number }, to: { x: number; y: number }): number {
  const dx = to.x - from.x;
  const dy = to.y - from.y;
  const along =
    dx === 0 && dy === 0 ? 0 : Math.max(0, Math.min(1, ((point.x - from.x) * dx + (point.y - from.y) * dy) / (dx * dx + dy * dy)));
  return Math.hypot(point.x - (from.x + along * dx), point.y - (from.y + along * dy));
}

/**
 * A straight link (in lanes, one routed along the gaps between notes) with its label where the canvas found room for it (see `layoutLinks`), drawn
 * above the notes so a label is never hidden behind one. A label that had to move off its link
 * to find room is joined to the link's middle by a dashed leader.
 */
function LabelledEdgeComponent({ id, sourceX, sourceY, targetX, targetY, data, style, markerEnd, selected }: EdgeProps<LabelledFlowEdge>) {
  const routed = data?.route ? roundedPath(data.route) : null;
  const [straight, straightX, straightY] = getStraightPath({ sourceX, sourceY, targetX, targetY });
  const path = routed?.path ?? straight;
  const middleX = routed?.middle.x ?? straightX;
  const middleY = routed?.middle.y ?? straightY;
  const label = data?.edge.label;
  const at = data?.labelAt ?? { x: middleX, y: middleY };
  const leader = !routed && label && distanceToSegment(at, { x: sourceX, y: sourceY }, { x: targetX, y: targetY }) > LEADER_FROM;
  return (
    <>
      <BaseEdge id={id} path={path} style={style} markerEnd={markerEnd} interactionWidth={18} />
      {leader && (
        <path
          className="edge-leader"
          d={`M ${at.x} ${at.y} L ${middleX} ${middleY}`}
          stroke={data?.accent ?? "#868e96"}
          strokeWidth={1}
          strokeDasharray="3 4"
          fill="none"
        />
      )}
      {label && (
        <EdgeLabelRenderer>
          <div
            className={`edge-label nodrag nopan${selected ? " edge-label--selected" : ""}`}
            data-testid="edge-label"
            style={{ transform: `translate(-50%, -50%) translate(${at.x}px, ${at.y}px)`, borderColor: data?.accent }}
          >
            {label}
          </div>
        </EdgeLabelRenderer>
      )}
    </>
  );
}

export const LabelledEdge = memo(LabelledEdgeComponent);
