// GET /api/rooms/[roomId]/workflows/[correlationId]?after=&limit= — one workflow: totals, agents, runs, messages in order
import { roomAccess } from "@/lib/http/room-access";
import { respond } from "@/lib/http/request";
import { parseQuery, readWorkflow, workflowMessagesQuerySchema } from "@/lib/workflows/read-workflow";
import { methodsNotAllowed } from "@/lib/http/method-not-allowed";

export const dynamic = "force-dynamic";

export async function GET(request: Request, { params }: { params: Promise<{ roomId: string; correlationId: string }> }) {
  return respond(async () => {
    const { roomId, correlationId } = await params;
    const query = parseQuery(workflowMessagesQuerySchema, new URL(request.url).searchParams);
    const { runtime } = await roomAccess(request, roomId);
    return Response.json({ workflow: await readWorkflow(runtime.database.db, roomId, correlationId, query) });
  }, request);
}

// Any other method: a 405 in JSON naming these.
export const { POST, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed("GET");
