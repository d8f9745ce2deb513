// POST /api/admin/runs/[runId]/retry — queue a new run in place of a failed one (admins)
import { retryRunAsAdmin } from "@/lib/admin/admin-run-actions";
import { adminAccess } from "@/lib/http/room-access";
import { idempotencyKey, respond } from "@/lib/http/request";
import { methodsNotAllowed } from "@/lib/http/method-not-allowed";

export const dynamic = "force-dynamic";

export async function POST(request: Request, { params }: { params: Promise<{ runId: string }> }) {
  return respond(async () => {
    const runtime = await adminAccess(request);
    const { runId } = await params;
    const run = await retryRunAsAdmin(runtime.database.db, runId, { idempotencyKey: idempotencyKey(request) });
    return Response.json({ run }, { status: 201 });
  }, request);
}

// Any other method: a 405 in JSON naming these.
export const { GET, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed("POST");
