// GET /api/admin/overview?range=day|week|month — rooms, watchers, runs, spending and its charts (admins)
import { readOverview, overviewQuerySchema } from "@/lib/admin/read-overview";
import { adminAccess } from "@/lib/http/room-access";
import { respond } from "@/lib/http/request";
import { parseQuery } from "@/lib/workflows/read-workflow";
import { methodsNotAllowed } from "@/lib/http/method-not-allowed";

export const dynamic = "force-dynamic";

export async function GET(request: Request) {
  return respond(async () => {
    const runtime = await adminAccess(request);
    const query = parseQuery(overviewQuerySchema, new URL(request.url).searchParams);
    return Response.json({ overview: await readOverview(runtime.database, query) });
  }, request);
}

// Any other method: a 405 in JSON naming these.
export const { POST, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed("GET");
