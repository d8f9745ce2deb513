// GET /api/admin/workflows/[correlationId]?after=&limit= — a workflow by correlation id, in whichever room it ran (admins)
import { adminWorkflowQuerySchema, findWorkflow } from "@/lib/admin/find-workflow";
import { adminAccess } from "@/lib/http/room-access";
import { respond } from "@/lib/http/request";
import { parseQuery } from "@/lib/workflows/read-workflow";
import { methodsNotAllowed } from "@/lib/http/method-not-allowed";

export const dynamic = "force-dynamic";

export async function GET(request: Request, { params }: { params: Promise<{ correlationId: string }> }) {
  return respond(async () => {
    const runtime = await adminAccess(request);
    const { correlationId } = await params;
    const query = parseQuery(adminWorkflowQuerySchema, new URL(request.url).searchParams);
    return Response.json(await findWorkflow(runtime.database.db, correlationId, query));
  }, request);
}

// Any other method: a 405 in JSON naming these.
export const { POST, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed("GET");
