// PATCH /api/admin/rooms/[roomId]/agents/[agentId] — change an agent's model and/or system prompt (admins)
import { notFound } from "@/lib/errors";
import { adminAccess } from "@/lib/http/room-access";
import { readJsonBody, respond } from "@/lib/http/request";
import { findRoom } from "@/lib/rooms/list-rooms";
import { updateAgent, updateAgentInputSchema } from "@/lib/rooms/update-agent";
import { methodsNotAllowed } from "@/lib/http/method-not-allowed";

export const dynamic = "force-dynamic";

export async function PATCH(request: Request, { params }: { params: Promise<{ roomId: string; agentId: string }> }) {
  return respond(async () => {
    const runtime = await adminAccess(request);
    const { roomId, agentId } = await params;
    if (!(await findRoom(runtime.database.db, roomId))) throw notFound("Room");
    const input = await readJsonBody(request, updateAgentInputSchema);
    return Response.json({ agent: await updateAgent(runtime.database.db, roomId, agentId, input) });
  }, request);
}

// Any other method: a 405 in JSON naming these.
export const { GET, POST, PUT, DELETE, OPTIONS } = methodsNotAllowed("PATCH");
