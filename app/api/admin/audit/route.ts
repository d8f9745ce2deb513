// GET /api/admin/audit?room=&cursor=&limit= — every change admins made, newest first (admins)
import { adminActionsQuerySchema, listAdminActions } from "@/lib/admin/admin-actions";
import { adminAccess } from "@/lib/http/room-access";
import { respond } from "@/lib/http/request";
import { parseQuery } from "@/lib/workflows/read-workflow";
import { methodsNotAllowed } from "@/lib/http/method-not-allowed";

export const dynamic = "force-dynamic";

export async function GET(request: Request) {
  return respond(async () => {
    const runtime = await adminAccess(request);
    const query = parseQuery(adminActionsQuerySchema, new URL(request.url).searchParams);
    const page = await listAdminActions(runtime.database.db, query);
    return Response.json({ actions: page.items, nextCursor: page.nextCursor });
  }, request);
}

// Any other method: a 405 in JSON naming these.
export const { POST, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed("GET");
