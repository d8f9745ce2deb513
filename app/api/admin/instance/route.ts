// GET /api/admin/instance — the scheduler, workers and their runs, database and migrations, providers (admins)
import { readInstance } from "@/lib/admin/read-instance";
import { adminAccess } from "@/lib/http/room-access";
import { respond } from "@/lib/http/request";
import { methodsNotAllowed } from "@/lib/http/method-not-allowed";

export const dynamic = "force-dynamic";

export async function GET(request: Request) {
  return respond(async () => {
    const runtime = await adminAccess(request);
    return Response.json({ instance: await readInstance(runtime) });
  }, request);
}

// Any other method: a 405 in JSON naming these.
export const { POST, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed("GET");
