// GET /api/admin/external-agents — every room's outside agents' tokens, newest first (admins; revoke through the room's route)
import { listExternalTokens } from "@/lib/external/external-tokens";
import { methodsNotAllowed } from "@/lib/http/method-not-allowed";
import { respond } from "@/lib/http/request";
import { adminAccess } from "@/lib/http/room-access";

export const dynamic = "force-dynamic";

export async function GET(request: Request) {
  return respond(async () => {
    const runtime = await adminAccess(request);
    return Response.json({ tokens: await listExternalTokens(runtime.database.db, null) });
  }, request);
}

// Any other method: a 405 in JSON naming these.
export const { POST, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed("GET");
