import { and, eq, sql } from "drizzle-orm";
import type { Db } from "@/db";
import { canvasNodes } from "@/db/schema";
import { notFound } from "@/lib/errors";
import { eventPayload, writeRoomEvents } from "@/lib/events/write-room-events";
import type { PayloadOf } from "@/lib/protocol";
import type { CanvasAuthor } from "./author";
import { type CanvasWriteOptions, nodeShapes } from "./create-node";
import { type NodeShape, boxOf, clearSpot } from "./free-spot";
import type { UpdateNodeInput } from "./inputs";

/** The changes that can make a node take other space on the canvas: its text (how tall it is), its kind's label, its size or its position. */
const PLACING_CHANGES = ["text", "kind", "width", "height", "x", "y"] as const;

/**
 * Changes a node's text, position, size or colour; each change bumps its version. An agent's
 * change that makes the node take other space — longer text, a move — keeps it clear of the
 * room's other nodes: it stays where it was asked to be (or where it was) when that is free,
 * and goes to the nearest free spot otherwise, found under the room lock as a new node's is.
 * A person's note stays where they put it, whatever they write in it. A retry under the same
 * key names the same changes, not the spot found, and gets the original event back.
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
    },
    {
      ...options,
      change: { type: "node.updated", subject: nodeId, request: { by: author.id, changes } },
      // The room's nodes as they stand once it is locked, read in the lock's own round trip.
      readBehindLock: placed ? (tx) => nodeShapes(tx, roomId) : undefined,
    },
  );
  return eventPayload(events, "node.updated");
}

/**
 * Where the node goes once changed, among the room's other nodes: its position, written with the
 * changes when it moves or was asked to. Nothing when the node is not in the room (the update
 * then finds no row to change).
 */
function placeAmong(shapes: (NodeShape & { id: string })[], nodeId: string, changes: UpdateNodeInput): { x: number; y: number } | undefined {
  const current = shapes.find((shape) => shape.id === nodeId);
  if (!current) return undefined;
  const text = changes.text;
  const changed: NodeShape = {
    x: changes.x ?? current.x,
    y: changes.y ?? current.y,
    kind: changes.kind ?? current.kind,
    length: text === undefined ? current.length : text.length,
    lineBreaks: text === undefined ? current.lineBreaks : text.split("\n").length - 1,
  };
  const others = shapes.filter((shape) => shape.id !== nodeId).map(boxOf);
  const spot = clearSpot(changed, others, boxOf(changed));
  const asked = changes.x !== undefined || changes.y !== undefined;
  return asked || spot.x !== current.x || spot.y !== current.y ? spot : undefined;
}
