// GET /api/rooms/[roomId]/events — the room's live event stream (server-sent events)
import { badRequest } from "@/lib/errors";
import { roomAccess } from "@/lib/http/room-access";
import { respond } from "@/lib/http/request";
import { openRoomEventStream } from "@/lib/realtime/room-event-stream";

export const dynamic = "force-dynamic";

function resumePoint(request: Request): number {
  const header = request.headers.get("last-event-id");
  const query = new URL(request.url).searchParams.get("after");
  const raw = header?.trim() || query?.trim() || "0";
  if (!/^\d{1,15}$/.test(raw)) throw badRequest("Last-Event-ID and ?after= take a non-negative event number.");
  return Number(raw);
}

export async function GET(request: Request, { params }: { params: Promise<{ roomId: string }> }) {
  return respond(async () => {
    const { roomId } = await params;
    const after = resumePoint(request);
    const { runtime, seat } = await roomAccess(request, roomId);
    const stream = openRoomEventStream({
      database: runtime.database,
      bus: runtime.bus,
      presence: runtime.presence,
      roomId,
      after,
      seatId: seat?.id ?? null,
      signal: request.signal,
    });
    return new Response(stream, {
      headers: {
        "Content-Type": "text/event-stream; charset=utf-8",
        "Cache-Control": "no-cache, no-transform",
        Connection: "keep-alive",
        "X-Accel-Buffering": "no",
      },
    });
  });
}
