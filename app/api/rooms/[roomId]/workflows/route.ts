// GET /api/rooms/[roomId]/workflows?cursor=&before=&limit= — the room's workflows, newest first, with status and totals
import { roomAccess } from "@/lib/http/room-access";
import { respond } from "@/lib/http/request";
import { listWorkflows, parseQuery, workflowListQuerySchema } from "@/lib/workflows/read-workflow";
import { methodsNotAllowed } from "@/lib/http/method-not-allowed";

export const dynamic = "force-dynamic";

export async function GET(request: Request, { params }: { params: Promise<{ roomId: string }> }) {
  return respond(async () => {
    const { roomId } = await params;
    const query = parseQuery(workflowListQuerySchema, new URL(request.url).searchParams);
    const { runtime } = await roomAccess(request, roomId);
    return Response.json(await listWorkflows(runtime.database.db, roomId, query));
  }, request);
}

// Any other method: a 405 in JSON naming these.
export const { POST, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed("GET");
