import type { IncomingMessage, ServerResponse } from "node:http";
import {
  createEdgeRoute,
  createNoteRoute,
  deleteEdgeRoute,
  deleteNodeRoute,
  updateEdgeRoute,
  updateNodeRoute,
} from "@/lib/canvas/canvas-routes";
import { LIMITS } from "@/lib/protocol";
import { serveRoomEvents } from "@/lib/realtime/serve-room-events";

/** Serves one request on Node.js's own request and response. */
export type LiveHandler = (request: IncomingMessage, response: ServerResponse) => Promise<void>;

interface LiveRoute {
  method: string;
  path: RegExp;
  serve(request: IncomingMessage, response: ServerResponse, params: string[]): Promise<void>;
}

const SEGMENT = "([^/]+)";
const pathOf = (pattern: string) => new RegExp(`^${pattern.replaceAll("*", SEGMENT)}$`);

/** A route whose handler takes a web Request and returns a Response, as App Router handlers do. */
function webRoute(method: string, pattern: string, handler: (request: Request, params: string[]) => Promise<Response>): LiveRoute {
  return { method, path: pathOf(pattern), serve: (request, response, params) => serveWeb(request, response, (web) => handler(web, params)) };
}

/**
 * The live path: a room's event stream and the canvas writes people make many times a
 * minute. The same handlers serve these paths under Next.js (app/api and pages/api); the
 * front server (scripts/serve.mjs) calls them directly and skips Next.js's per-request
 * routing and response piping, which cost more than the write itself.
 */
const LIVE_ROUTES: LiveRoute[] = [
  { method: "GET", path: pathOf("/api/rooms/*/events"), serve: (request, response, [roomId]) => serveRoomEvents(request, response, roomId!) },
  webRoute("POST", "/api/rooms/*/nodes", (request, [roomId]) => createNoteRoute(request, { roomId: roomId! })),
  webRoute("PATCH", "/api/rooms/*/nodes/*", (request, [roomId, nodeId]) => updateNodeRoute(request, { roomId: roomId!, nodeId: nodeId! })),
  webRoute("DELETE", "/api/rooms/*/nodes/*", (request, [roomId, nodeId]) => deleteNodeRoute(request, { roomId: roomId!, nodeId: nodeId! })),
  webRoute("POST", "/api/rooms/*/edges", (request, [roomId]) => createEdgeRoute(request, { roomId: roomId! })),
  webRoute("PATCH", "/api/rooms/*/edges/*", (request, [roomId, edgeId]) => updateEdgeRoute(request, { roomId: roomId!, edgeId: edgeId! })),
  webRoute("DELETE", "/api/rooms/*/edges/*", (request, [roomId, edgeId]) => deleteEdgeRoute(request, { roomId: roomId!, edgeId: edgeId! })),
];

function decodeSegments(segments: string[]): string[] | null {
  try {
    return segments.map((segment) => decodeURIComponent(segment));
  } catch {
    return null;
  }
}

/**
 * The handler for a request on the live path, or null for everything else (and for anything
 * unusual on those paths, such as other methods or undecodable segments), which Next.js serves.
 */
export function liveRouteFor(request: IncomingMessage): LiveHandler | null {
  const url = request.url ?? "/";
  const query = url.indexOf("?");
  const pathname = query < 0 ? url : url.slice(0, query);
  for (const route of LIVE_ROUTES) {
    if (route.method !== request.method) continue;
    const match = route.path.exec(pathname);
    if (!match) continue;
    const params = decodeSegments(match.slice(1));
    return params ? (req, res) => route.serve(req, res, params) : null;
  }
  return null;
}

/** Headers that describe one hop's connection rather than the request itself. */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "upgrade", "proxy-connection", "te", "trailer"]);

/**
 * Reads a request body, keeping at most `limit` bytes (the rest is read and dropped, so the
 * answer can still be sent): a handler that sees more than its limit answers 413.
 */
async function readBody(request: IncomingMessage, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let kept = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    if (kept >= limit) continue;
    const part = chunk.length > limit - kept ? chunk.subarray(0, limit - kept) : chunk;
    chunks.push(part);
    kept += part.length;
  }
  return Buffer.concat(chunks, kept);
}

/** Calls a web handler with the Node.js request as a `Request` and writes its `Response` back. */
async function serveWeb(request: IncomingMessage, response: ServerResponse, handler: (request: Request) => Promise<Response>) {
  try {
    const headers = new Headers();
    for (let index = 0; index < request.rawHeaders.length; index += 2) {
      const name = request.rawHeaders[index]!;
      if (!HOP_BY_HOP.has(name.toLowerCase())) headers.append(name, request.rawHeaders[index + 1]!);
    }
    const hasBody = request.method !== "GET" && request.method !== "HEAD";
    const body = hasBody ? await readBody(request, LIMITS.requestBodyBytes + 1) : undefined;
    const answer = await handler(new Request(`http://localhost${request.url ?? "/"}`, { method: request.method, headers, body: body as Uint8Array<ArrayBuffer> | undefined }));
    const payload = Buffer.from(await answer.arrayBuffer());
    const outgoing: Record<string, string | string[]> = {};
    answer.headers.forEach((value, name) => {
      if (name !== "set-cookie") outgoing[name] = value;
    });
    const cookies = answer.headers.getSetCookie();
    if (cookies.length > 0) outgoing["set-cookie"] = cookies;
    outgoing["content-length"] = String(payload.length);
    response.writeHead(answer.status, outgoing);
    response.end(payload);
  } catch (error) {
    console.error("[http] unexpected error on the live path:", error);
    if (response.headersSent) {
      response.destroy();
      return;
    }
    response.writeHead(500, { "content-type": "application/json" });
    response.end(JSON.stringify({ error: { code: "internal", message: "Something went wrong on our side." } }));
  }
}
