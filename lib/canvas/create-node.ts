import { eq, sql } from "drizzle-orm";
import type { Db, DbOrTx } from "@/db";
import { canvasNodes } from "@/db/schema";
import { eventPayload, type WriteRequestOptions, writeRoomEvents } from "@/lib/events/write-room-events";
import type { CanvasNodeDto } from "@/lib/protocol";
import type { CanvasAuthor } from "./author";
import { type Box, type NodeShape, type Point, boxOf, freeSpot, shapeOf } from "./free-spot";
import type { CreateNodeInput } from "./inputs";
import { insertNodes, newNodeRow } from "./insert-nodes";

export interface CanvasWriteOptions extends WriteRequestOptions {
  correlationId?: string;
}

export interface CreateNodeOptions extends CanvasWriteOptions {
  /** Where to look for free space when the input gives no position. */
  placeNear?: Point;
}

/** The input of a node whose position may be left to `createNode` to find. */
export type NodePlacement = Omit<CreateNodeInput, "x" | "y"> & Partial<Point>;

/**
 * Adds a node (a person's sticky note or an agent's work) and its `node.created` event. A
 * person's note goes where they put it. A node without a position goes to the free spot
 * nearest `placeNear`, and an agent's node to the free spot nearest the position it asked for,
 * so agents' work never covers other work; the spot is found under a lock of the room's placed
 * nodes, so two nodes placed at once never take the same one. A retry under the same key names the same input, not
 * the spot found, and gets the original node back.
 */
export async function createNode(
  db: Db,
  roomId: string,
  author: CanvasAuthor,
  input: NodePlacement,
  options: CreateNodeOptions = {},
): Promise<CanvasNodeDto> {
  const { placeNear, ...writeOptions } = options;
  const asked = input.x !== undefined && input.y !== undefined ? { x: input.x, y: input.y } : undefined;
  const placed = !asked || author.kind === "agent";
  const { events } = await writeRoomEvents(
    db,
    roomId,
    async (tx, emit, now, defer, occupied: Box[] | undefined) => {
      const kind = input.kind ?? "note";
      const place = placed ? spotAmong(occupied ?? [], asked ?? placeNear ?? { x: 0, y: 0 }, { kind, text: input.text }) : asked!;
      const row = newNodeRow({
        roomId,
        kind,
        text: input.text,
        ...place,
        width: input.width,
        height: input.height,
        color: input.color,
        author,
        at: now,
      });
      await insertNodes(tx, emit, [row], { correlationId: options.correlationId, defer });
    },
    {
      ...writeOptions,
      change: { type: "node.created", request: { by: author.id, input } },
      // The room is locked only by the statement that stores the node and its event. A placed
      // node's spot is found among the nodes read with BEGIN behind a lock that only placed nodes
      // take, so two placed at once never take the same spot and no other write waits for them.
      lockAtEnd: true,
      readFirst: placed ? (tx) => placementRead(tx, roomId) : undefined,
    },
  );
  return eventPayload(events, "node.created").node;
}

/**
 * The free spot nearest `anchor` for a node of this kind and text, among the room's nodes as
 * they stand: call it under the room lock (in a room write), so that two nodes placed at once
 * never take the same spot.
 */
export async function placeNode(tx: DbOrTx, roomId: string, anchor: Point, node: { kind: string; text: string }): Promise<Point> {
  return spotAmong(await occupiedBoxes(tx, roomId), anchor, node);
}

/**
 * The room's nodes, read once this write holds the room's placement lock (a transaction-scoped
 * advisory lock, taken in the same round trip): placed nodes wait for each other, nothing else
 * waits for them.
 */
function placementRead(tx: DbOrTx, roomId: string): Promise<Box[]> {
  const lock = tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`parley-place:${roomId}`}, 0))`);
  // Sent now, ahead of the read (a Drizzle query goes out when its `then` is called).
  const locked = new Promise<unknown>((resolve, reject) => {
    lock.then(resolve, reject);
  });
  return Promise.all([locked, occupiedBoxes(tx, roomId)]).then(([, boxes]) => boxes);
}

/** The boxes the room's nodes take on screen; read under the room lock to place a node among them. */
async function occupiedBoxes(tx: DbOrTx, roomId: string): Promise<Box[]> {
  return (await nodeShapes(tx, roomId)).map(boxOf);
}

/** The room's nodes as placement sees them, each with its id; read under the room lock to place one of them again. */
export async function nodeShapes(tx: DbOrTx, roomId: string): Promise<(NodeShape & { id: string })[]> {
  return tx
    .select({ id: canvasNodes.id, ...shapeColumns })
    .from(canvasNodes)
    .where(eq(canvasNodes.roomId, roomId));
}

function spotAmong(occupied: Box[], anchor: Point, node: { kind: string; text: string }): Point {
  return freeSpot(anchor, occupied, boxOf(shapeOf({ x: 0, y: 0, ...node })));
}

/** What placement reads of each node: its position, kind and how much text it holds, not the text. */
const shapeColumns = {
  x: canvasNodes.x,
  y: canvasNodes.y,
  kind: canvasNodes.kind,
  length: sql<number>`char_length(${canvasNodes.text})`.mapWith(Number),
  lineBreaks: sql<number>`char_length(${canvasNodes.text}) - char_length(replace(${canvasNodes.text}, chr(10), ''))`.mapWith(Number),
};
