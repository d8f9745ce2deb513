// POST /api/admin/runs/[runId]/cancel — stop a queued or running run in any room (admins)
import { cancelRunAsAdmin } from "@/lib/admin/admin-run-actions";
import { adminAccess } from "@/lib/http/room-access";
import { respond } from "@/lib/http/request";
import { methodsNotAllowed } from "@/lib/http/method-not-allowed";

export const dynamic = "force-dynamic";

export async function POST(request: Request, { params }: { params: Promise<{ runId: string }> }) {
  return respond(async () => {
    const runtime = await adminAccess(request);
    const { runId } = await params;
    const { roomId, outcome } = await cancelRunAsAdmin(runtime.database.db, runId);
    return Response.json({ runId, roomId, outcome });
  }, request);
}

// Any other method: a 405 in JSON naming these.
export const { GET, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed("POST");
