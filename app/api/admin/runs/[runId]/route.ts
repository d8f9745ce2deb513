// GET /api/admin/runs/[runId] — one run with its steps, attempts, retries and model calls (admins)
import { readAdminRun } from "@/lib/admin/admin-runs";
import { adminAccess } from "@/lib/http/room-access";
import { respond } from "@/lib/http/request";
import { methodsNotAllowed } from "@/lib/http/method-not-allowed";

export const dynamic = "force-dynamic";

export async function GET(request: Request, { params }: { params: Promise<{ runId: string }> }) {
  return respond(async () => {
    const runtime = await adminAccess(request);
    const { runId } = await params;
    return Response.json(await readAdminRun(runtime.database.db, runId));
  }, request);
}

// Any other method: a 405 in JSON naming these.
export const { POST, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed("GET");
