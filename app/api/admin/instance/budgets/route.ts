// GET /api/admin/instance/budgets — the server's daily budgets; PATCH — set them from the dashboard (admins, audited)
import { adminAccess } from "@/lib/http/room-access";
import { readJsonBody, respond } from "@/lib/http/request";
import { methodsNotAllowed } from "@/lib/http/method-not-allowed";
import { instanceBudgetsPatchSchema, readInstanceBudgets, updateInstanceBudgets } from "@/lib/limits/instance-budgets";

export const dynamic = "force-dynamic";

export async function GET(request: Request) {
  return respond(async () => {
    const runtime = await adminAccess(request);
    return Response.json({ budgets: await readInstanceBudgets(runtime.database.db) });
  }, request);
}

export async function PATCH(request: Request) {
  return respond(async () => {
    const runtime = await adminAccess(request);
    const patch = await readJsonBody(request, instanceBudgetsPatchSchema);
    return Response.json({ budgets: await updateInstanceBudgets(runtime.database.db, patch) });
  }, request);
}

// Any other method: a 405 in JSON naming these.
export const { POST, PUT, DELETE, OPTIONS } = methodsNotAllowed("GET", "PATCH");
