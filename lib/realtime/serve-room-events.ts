import type { IncomingMessage, ServerResponse } from "node:http";
import { AppError, badRequest, unstorableTextError } from "@/lib/errors";
import { roomAccessByCookie } from "@/lib/http/room-access";
import { streamRoomEvents } from "./room-event-stream";

const SSE_HEADERS = {
  "Content-Type": "text/event-stream; charset=utf-8",
  "Cache-Control": "no-cache, no-transform",
  "X-Accel-Buffering": "no",
  // The body is not chunk-encoded (see below), so it ends when the connection closes.
  Connection: "close",
} as const;

/** Where a reconnecting client resumes: `Last-Event-ID`, else `?after=`, else the start. */
function resumePoint(lastEventId: string | undefined, url: string | undefined): number {
  const query = new URL(url ?? "/", "http://localhost").searchParams.get("after");
  const raw = lastEventId?.trim() || query?.trim() || "0";
  if (!/^\d{1,15}$/.test(raw)) throw badRequest("Last-Event-ID and ?after= take a non-negative event number.");
  return Number(raw);
}

function sendError(response: ServerResponse, error: unknown): void {
  const known = error instanceof AppError ? error : unstorableTextError(error);
  if (!known) console.error("[sse] unexpected error:", error);
  const body = known?.toJSON() ?? { error: { code: "internal", message: "Something went wrong on our side." } };
  response.writeHead(known?.status ?? 500, { "Content-Type": "application/json" });
  response.end(JSON.stringify(body));
}

/**
 * Serves a room's live event stream on a Node.js response. Frames are written straight to
 * the socket: no web stream sits between the bus and the client, which is what keeps
 * delivery cheap with hundreds of viewers per room. Resolves when the client has gone.
 */
export async function serveRoomEvents(request: IncomingMessage, response: ServerResponse, roomId: string): Promise<void> {
  if (request.method !== "GET") {
    response.setHeader("Allow", "GET");
    return sendError(response, new AppError(405, "method_not_allowed", "The event stream only answers GET."));
  }
  let access: Awaited<ReturnType<typeof roomAccessByCookie>>;
  let after: number;
  try {
    const lastEventId = request.headers["last-event-id"];
    after = resumePoint(Array.isArray(lastEventId) ? lastEventId[0] : lastEventId, request.url);
    access = await roomAccessByCookie(request.headers.cookie, roomId);
  } catch (error) {
    return sendError(response, error);
  }
  if (response.destroyed) return;

  // Without chunked transfer encoding, each frame goes to the socket as it is: one buffer per
  // viewer and event, where a chunk-encoded write adds a size line and a trailer (four buffers
  // gathered into a writev for every viewer). A stream never has a length anyway: it ends when
  // the connection does, which HTTP/1.1 allows for a response that says `Connection: close`.
  response.removeHeader("Transfer-Encoding");
  response.writeHead(200, SSE_HEADERS);
  response.socket?.setNoDelay(true);
  const { runtime, seat } = access;
  const stream = streamRoomEvents(
    { database: runtime.database, bus: runtime.bus, presence: runtime.presence, roomId, after, seatId: seat?.id ?? null },
    {
      write: (chunk) => void response.write(chunk),
      get buffered() {
        return response.writableLength;
      },
      end: () => response.end(),
      abort: () => response.destroy(),
    },
  );
  await new Promise<void>((resolve) => {
    response.once("close", () => {
      stream.close();
      resolve();
    });
  });
}
