// DELETE /api/admin/rooms/[roomId]/agents/[agentId]/vault — an admin clears an agent's knowledge vault
import { adminAccess } from "@/lib/http/room-access";
import { respond } from "@/lib/http/request";
import { clearVault } from "@/lib/knowledge/clear-vault";
import { methodsNotAllowed } from "@/lib/http/method-not-allowed";

export const dynamic = "force-dynamic";

export async function DELETE(request: Request, { params }: { params: Promise<{ roomId: string; agentId: string }> }) {
  return respond(async () => {
    const { roomId, agentId } = await params;
    const runtime = await adminAccess(request);
    const { identity } = await clearVault(runtime.database.db, roomId, agentId);
    return Response.json({ cleared: identity });
  }, request);
}

// Any other method: a 405 in JSON naming these.
export const { GET, POST, PUT, PATCH, OPTIONS } = methodsNotAllowed("DELETE");
