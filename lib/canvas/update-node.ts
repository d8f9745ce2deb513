import { and, eq, sql } from "drizzle-orm";
import type { Db } from "@/db";
import { canvasNodes } from "@/db/schema";
import { notFound } from "@/lib/errors";
import { eventPayload, writeRoomEvents } from "@/lib/events/write-room-events";
import type { PayloadOf } from "@/lib/protocol";
import type { CanvasAuthor } from "./author";
import { type CanvasWriteOptions, nodeShapes } from "./create-node";
import { type NodeShape, boxOf, clash, clearSpot, overlaps } from "./free-spot";
import type { UpdateNodeInput } from "./inputs";

/** The changes that can make a node take other space on the canvas: its text (how tall it is), its kind's label, its size or its position. */
const PLACING_CHANGES = ["text", "kind", "width", "height", "x", "y"] as const;

/** The changes that can make a node take more room where it stands: its text and its kind's label. */
const GROWING_CHANGES = ["text", "kind"] as const;

/**
 * Changes a node's text, position, size or colour; each change bumps its version. An agent's
 * change that makes the node take other space — longer text, a move — keeps it clear of the
 * room's other nodes: it stays where it was asked to be (or where it was) when that is free,
 * and goes to the nearest free spot otherwise, found under the room lock as a new node's is.
 * A person's note stays where they put it: moved, it stays where they dropped it, even on
 * other work, since they see the canvas as they do it; written taller in place, it stays under
 * their caret and the nodes it comes to cover move to the free spots nearest where they were,
 * each with a `node.updated` of its own in the same write. A retry under the same key names the
 * same changes, not the spots found, and gets the original events back.
 */
export async function updateNode(
  db: Db,
  roomId: string,
  nodeId: string,
  author: CanvasAuthor,
  changes: UpdateNodeInput,
  options: CanvasWriteOptions = {},
): Promise<PayloadOf<"node.updated">> {
  const placed = author.kind === "agent" && PLACING_CHANGES.some((key) => changes[key] !== undefined);
  const moved = changes.x !== undefined || changes.y !== undefined;
  const grows = author.kind !== "agent" && !moved && GROWING_CHANGES.some((key) => changes[key] !== undefined);
  const { events } = await writeRoomEvents(
    db,
    roomId,
    async (tx, emit, now, _defer, shapes: (NodeShape & { id: string })[] | undefined) => {
      const written = placed ? { ...changes, ...placeAmong(shapes ?? [], nodeId, changes) } : changes;
      const [row] = await tx
        .update(canvasNodes)
        .set({ ...written, version: sql`${canvasNodes.version} + 1`, updatedAt: now })
        .where(and(eq(canvasNodes.id, nodeId), eq(canvasNodes.roomId, roomId)))
        .returning({ version: canvasNodes.version });
      if (!row) throw notFound(`Node ${nodeId}`);
      emit({
        type: "node.updated",
        actor: author,
        correlationId: options.correlationId,
        payload: { nodeId, changes: written, version: row.version, updatedAt: now.toISOString() },
      });
      if (!grows) return;
      for (const { id, x, y } of makeRoomFor(shapes ?? [], nodeId, changes)) {
        const [other] = await tx
          .update(canvasNodes)
          .set({ x, y, version: sql`${canvasNodes.version} + 1`, updatedAt: now })
          .where(and(eq(canvasNodes.id, id), eq(canvasNodes.roomId, roomId)))
          .returning({ version: canvasNodes.version });
        emit({
          type: "node.updated",
          actor: author,
          correlationId: options.correlationId,
          payload: { nodeId: id, changes: { x, y }, version: other!.version, updatedAt: now.toISOString() },
        });
      }
    },
    {
      ...options,
      change: { type: "node.updated", subject: nodeId, request: { by: author.id, changes } },
      // The room's nodes as they stand once it is locked, read in the lock's own round trip.
      readBehindLock: placed || grows ? (tx) => nodeShapes(tx, roomId) : undefined,
    },
  );
  return eventPayload(events, "node.updated");
}

/** A node's shape once `changes` are made to it. */
function changedShape(current: NodeShape, changes: UpdateNodeInput): NodeShape {
  const text = changes.text;
  return {
    x: changes.x ?? current.x,
    y: changes.y ?? current.y,
    kind: changes.kind ?? current.kind,
    length: text === undefined ? current.length : text.length,
    lineBreaks: text === undefined ? current.lineBreaks : text.split("\n").length - 1,
  };
}

/**
 * The nodes a note written taller in place comes to cover, or to crowd closer than the gap kept
 * between nodes, each with the free spot nearest where it was: those it already covered or
 * crowded before (put there by a person) stay. Each is placed clear of every other node,
 * those moved before it included, so no move makes room by covering something else.
 */
function makeRoomFor(
  shapes: (NodeShape & { id: string })[],
  nodeId: string,
  changes: UpdateNodeInput,
): { id: string; x: number; y: number }[] {
  const current = shapes.find((shape) => shape.id === nodeId);
  if (!current) return [];
  const before = boxOf(current);
  const after = boxOf(changedShape(current, changes));
  const placed = new Map(shapes.filter((shape) => shape.id !== nodeId).map((shape) => [shape.id, boxOf(shape)]));
  const covered = [...placed].filter(
    ([, box]) => (clash(after, box) && !clash(before, box)) || (overlaps(after, box) && !overlaps(before, box)),
  );
  const moves: { id: string; x: number; y: number }[] = [];
  for (const [id, box] of covered) {
    const others = [after, ...[...placed].filter(([other]) => other !== id).map(([, other]) => other)];
    const spot = clearSpot(box, others, box);
    placed.set(id, { ...box, ...spot });
    moves.push({ id, ...spot });
  }
  return moves;
}

/**
 * Where the node goes once changed, among the room's other nodes: its position, written with the
 * changes when it moves or was asked to. Nothing when the node is not in the room (the update
 * then finds no row to change).
 */
function placeAmong(
  shapes: (NodeShape & { id: string })[],
  nodeId: string,
  changes: UpdateNodeInput,
): { x: number; y: number } | undefined {
  const current = shapes.find((shape) => shape.id === nodeId);
  if (!current) return undefined;
  const changed = changedShape(current, changes);
  const others = shapes.filter((shape) => shape.id !== nodeId).map(boxOf);
  const spot = clearSpot(changed, others, boxOf(changed));
  const asked = changes.x !== undefined || changes.y !== undefined;
  return asked || spot.x !== current.x || spot.y !== current.y ? spot : undefined;
}
