// DELETE /api/rooms/[roomId]/external-agents/[tokenId] — revoke an outside agent's token (participants and admins)
import { revokeExternalToken } from "@/lib/external/external-tokens";
import { inviterAccess } from "@/lib/external/room-invite-access";
import { methodsNotAllowed } from "@/lib/http/method-not-allowed";
import { respond } from "@/lib/http/request";

export const dynamic = "force-dynamic";

export async function DELETE(request: Request, { params }: { params: Promise<{ roomId: string; tokenId: string }> }) {
  return respond(async () => {
    const { roomId, tokenId } = await params;
    const { runtime, actor } = await inviterAccess(request, roomId, { write: true });
    return Response.json(await revokeExternalToken(runtime.database.db, roomId, tokenId, actor));
  }, request);
}

// Any other method: a 405 in JSON naming these.
export const { GET, POST, PUT, PATCH, OPTIONS } = methodsNotAllowed("DELETE");
