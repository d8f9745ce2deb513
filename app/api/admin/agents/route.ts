// GET /api/admin/agents?q=&room=&limit= — agents across the instance by name or id, for the runs filter (admins)
import { adminAgentsQuerySchema, findAgentsForAdmin } from "@/lib/admin/find-agents";
import { adminAccess } from "@/lib/http/room-access";
import { respond } from "@/lib/http/request";
import { methodsNotAllowed } from "@/lib/http/method-not-allowed";
import { parseQuery } from "@/lib/paging/parse-query";

export const dynamic = "force-dynamic";

export async function GET(request: Request) {
  return respond(async () => {
    const runtime = await adminAccess(request);
    const query = parseQuery(adminAgentsQuerySchema, new URL(request.url).searchParams);
    return Response.json({ agents: await findAgentsForAdmin(runtime.database.db, query) });
  }, request);
}

// Any other method: a 405 in JSON naming these.
export const { POST, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed("GET");
