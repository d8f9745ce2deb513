// GET /api/rooms/[roomId]/events — the room's live event stream (server-sent events)
//
// A Pages API route rather than an App Router handler on purpose: it gets the Node.js
// response and writes each frame straight to the socket, where a route handler's
// Response would pipe every chunk for every viewer through web streams.
import type { NextApiRequest, NextApiResponse } from "next";
import { serveRoomEvents } from "@/lib/realtime/serve-room-events";

export const config = { api: { bodyParser: false, responseLimit: false, externalResolver: true } };

export default async function handler(request: NextApiRequest, response: NextApiResponse) {
  await serveRoomEvents(request, response, String(request.query.roomId));
}
