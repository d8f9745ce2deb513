// GET /api/rooms/[roomId]/workflows/[correlationId]/export — the workflow's messages as JSON Lines, streamed
import { roomAccess } from "@/lib/http/room-access";
import { respond } from "@/lib/http/request";
import { assertWorkflow, exportWorkflow } from "@/lib/workflows/read-workflow";
import { methodsNotAllowed } from "@/lib/http/method-not-allowed";

export const dynamic = "force-dynamic";

export async function GET(request: Request, { params }: { params: Promise<{ roomId: string; correlationId: string }> }) {
  return respond(async () => {
    const { roomId, correlationId } = await params;
    const { runtime } = await roomAccess(request, roomId);
    await assertWorkflow(runtime.database.db, roomId, correlationId);
    return new Response(exportWorkflow(runtime.database.db, roomId, correlationId), {
      headers: {
        "content-type": "application/x-ndjson; charset=utf-8",
        "content-disposition": `attachment; filename="workflow-${correlationId.replace(/[^\w.-]/g, "_")}.jsonl"`,
        "cache-control": "no-store",
      },
    });
  }, request);
}

// Any other method: a 405 in JSON naming these.
export const { POST, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed("GET");
