// The canvas's write endpoints as web handlers (a Request in, a Response out). The App Router
// routes under app/api/rooms/[roomId]/nodes and /edges serve them, and so does Parley's
// front server for the same paths (see lib/http/live-routes.ts).
import { seatActor } from "@/lib/auth/seats";
import { deleteNode } from "@/lib/canvas/delete-node";
import { createEdge, deleteEdge, updateEdge } from "@/lib/canvas/edges";
import { createNode } from "@/lib/canvas/create-node";
import { createEdgeInputSchema, createNodeInputSchema, updateEdgeInputSchema, updateNodeInputSchema } from "@/lib/canvas/inputs";
import { updateNode } from "@/lib/canvas/update-node";
import { participantAccess } from "@/lib/http/room-access";
import { idempotencyKey, readJsonBody, respond } from "@/lib/http/request";

// People write notes; what kind of work a node is (a lyric, a scene) is the agents' to say.
const humanNoteSchema = createNodeInputSchema.omit({ kind: true });
const humanEditSchema = updateNodeInputSchema.omit({ kind: true }).refine((input) => Object.keys(input).length > 0, "Nothing to change");

/** POST /api/rooms/[roomId]/nodes — a participant adds a sticky note. */
export function createNoteRoute(request: Request, { roomId }: { roomId: string }): Promise<Response> {
  return respond(async () => {
    const { runtime, seat } = await participantAccess(request, roomId);
    const input = await readJsonBody(request, humanNoteSchema);
    const node = await createNode(runtime.database.db, roomId, seatActor(seat), input, {
      idempotencyKey: idempotencyKey(request),
    });
    return Response.json({ node }, { status: 201 });
  });
}

/** PATCH /api/rooms/[roomId]/nodes/[nodeId] — edit or move a note. */
export function updateNodeRoute(request: Request, { roomId, nodeId }: { roomId: string; nodeId: string }): Promise<Response> {
  return respond(async () => {
    const { runtime, seat } = await participantAccess(request, roomId);
    const changes = await readJsonBody(request, humanEditSchema);
    const update = await updateNode(runtime.database.db, roomId, nodeId, seatActor(seat), changes, {
      idempotencyKey: idempotencyKey(request),
    });
    return Response.json(update);
  });
}

/** DELETE /api/rooms/[roomId]/nodes/[nodeId] — remove a note and its edges. */
export function deleteNodeRoute(request: Request, { roomId, nodeId }: { roomId: string; nodeId: string }): Promise<Response> {
  return respond(async () => {
    const { runtime, seat } = await participantAccess(request, roomId);
    const deleted = await deleteNode(runtime.database.db, roomId, nodeId, seatActor(seat), {
      idempotencyKey: idempotencyKey(request),
    });
    return Response.json(deleted);
  });
}

/** POST /api/rooms/[roomId]/edges — a participant connects two notes with a labelled edge. */
export function createEdgeRoute(request: Request, { roomId }: { roomId: string }): Promise<Response> {
  return respond(async () => {
    const { runtime, seat } = await participantAccess(request, roomId);
    const input = await readJsonBody(request, createEdgeInputSchema);
    const edge = await createEdge(runtime.database.db, roomId, seatActor(seat), input, {
      idempotencyKey: idempotencyKey(request),
    });
    return Response.json({ edge }, { status: 201 });
  });
}

/** PATCH /api/rooms/[roomId]/edges/[edgeId] — relabel an edge. */
export function updateEdgeRoute(request: Request, { roomId, edgeId }: { roomId: string; edgeId: string }): Promise<Response> {
  return respond(async () => {
    const { runtime, seat } = await participantAccess(request, roomId);
    const input = await readJsonBody(request, updateEdgeInputSchema);
    const update = await updateEdge(runtime.database.db, roomId, edgeId, seatActor(seat), input, {
      idempotencyKey: idempotencyKey(request),
    });
    return Response.json(update);
  });
}

/** DELETE /api/rooms/[roomId]/edges/[edgeId] — remove an edge. */
export function deleteEdgeRoute(request: Request, { roomId, edgeId }: { roomId: string; edgeId: string }): Promise<Response> {
  return respond(async () => {
    const { runtime, seat } = await participantAccess(request, roomId);
    const deleted = await deleteEdge(runtime.database.db, roomId, edgeId, seatActor(seat), {
      idempotencyKey: idempotencyKey(request),
    });
    return Response.json(deleted);
  });
}
