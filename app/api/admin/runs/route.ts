// GET /api/admin/runs?status=&room=&agent=&cursor=&limit= — every room's runs, newest first (admins)
import { adminRunsQuerySchema, listAdminRuns } from "@/lib/admin/admin-runs";
import { adminAccess } from "@/lib/http/room-access";
import { respond } from "@/lib/http/request";
import { parseQuery } from "@/lib/workflows/read-workflow";
import { methodsNotAllowed } from "@/lib/http/method-not-allowed";

export const dynamic = "force-dynamic";

export async function GET(request: Request) {
  return respond(async () => {
    const runtime = await adminAccess(request);
    const query = parseQuery(adminRunsQuerySchema, new URL(request.url).searchParams);
    const page = await listAdminRuns(runtime.database.db, query);
    return Response.json({ runs: page.items, nextCursor: page.nextCursor });
  }, request);
}

// Any other method: a 405 in JSON naming these.
export const { POST, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed("GET");
