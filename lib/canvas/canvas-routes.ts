// The canvas's write endpoints, which people use many times a minute: served as Pages API
// routes under pages/api/rooms/[roomId]/nodes and /edges (see `pagesRoutes`).
import { deleteNode } from "@/lib/canvas/delete-node";
import { createEdge, deleteEdge, updateEdge } from "@/lib/canvas/edges";
import { createNode } from "@/lib/canvas/create-node";
import { createEdgeInputSchema, placeNoteInputSchema, updateEdgeInputSchema, updateNodeInputSchema } from "@/lib/canvas/inputs";
import { updateNode } from "@/lib/canvas/update-node";
import { participantRoute } from "@/lib/http/participant-route";

// People write notes; what kind of work a node is (a lyric, a scene) is the agents' to say.
const humanEditSchema = updateNodeInputSchema.omit({ kind: true }).refine((input) => Object.keys(input).length > 0, "Nothing to change");

/** A participant adds a sticky note. */
export const createNoteRoute = participantRoute(
  "/api/rooms/[roomId]/nodes",
  placeNoteInputSchema,
  async ({ runtime, params, actor, input, idempotencyKey }) => {
    const { near, ...note } = input;
    const node = await createNode(runtime.database.db, params.roomId, actor, note, { idempotencyKey, placeNear: near });
    return { status: 201, body: { node } };
  },
);

/** A participant edits or moves a note. */
export const updateNodeRoute = participantRoute(
  "/api/rooms/[roomId]/nodes/[nodeId]",
  humanEditSchema,
  async ({ runtime, params, actor, input, idempotencyKey }) => ({
    status: 200,
    body: await updateNode(runtime.database.db, params.roomId, params.nodeId, actor, input, { idempotencyKey }),
  }),
);

/** A participant removes a note and its edges. */
export const deleteNodeRoute = participantRoute(
  "/api/rooms/[roomId]/nodes/[nodeId]",
  null,
  async ({ runtime, params, actor, idempotencyKey }) => ({
    status: 200,
    body: await deleteNode(runtime.database.db, params.roomId, params.nodeId, actor, { idempotencyKey }),
  }),
);

/** A participant connects two notes with a labelled edge. */
export const createEdgeRoute = participantRoute(
  "/api/rooms/[roomId]/edges",
  createEdgeInputSchema,
  async ({ runtime, params, actor, input, idempotencyKey }) => {
    const edge = await createEdge(runtime.database.db, params.roomId, actor, input, { idempotencyKey });
    return { status: 201, body: { edge } };
  },
);

/** A participant relabels an edge. */
export const updateEdgeRoute = participantRoute(
  "/api/rooms/[roomId]/edges/[edgeId]",
  updateEdgeInputSchema,
  async ({ runtime, params, actor, input, idempotencyKey }) => ({
    status: 200,
    body: await updateEdge(runtime.database.db, params.roomId, params.edgeId, actor, input, { idempotencyKey }),
  }),
);

/** A participant removes an edge. */
export const deleteEdgeRoute = participantRoute(
  "/api/rooms/[roomId]/edges/[edgeId]",
  null,
  async ({ runtime, params, actor, idempotencyKey }) => ({
    status: 200,
    body: await deleteEdge(runtime.database.db, params.roomId, params.edgeId, actor, { idempotencyKey }),
  }),
);
