// GET /api/rooms/[roomId]/agents/[agentId]/vault — what an agent has learned that this room may see (read-only, anyone watching)
import { and, eq } from "drizzle-orm";
import { agents } from "@/db/schema";
import { notFound } from "@/lib/errors";
import { roomAccess } from "@/lib/http/room-access";
import { respond } from "@/lib/http/request";
import { readVault } from "@/lib/knowledge/vault";
import { methodsNotAllowed } from "@/lib/http/method-not-allowed";

export const dynamic = "force-dynamic";

export async function GET(request: Request, { params }: { params: Promise<{ roomId: string; agentId: string }> }) {
  return respond(async () => {
    const { roomId, agentId } = await params;
    const { runtime } = await roomAccess(request, roomId);
    const db = runtime.database.db;
    const [agent] = await db
      .select()
      .from(agents)
      .where(and(eq(agents.roomId, roomId), eq(agents.id, agentId)));
    if (!agent) throw notFound("Agent");
    return Response.json({ vault: await readVault(db, agent.identity, {}, roomId) });
  }, request);
}

// Any other method: a 405 in JSON naming these.
export const { POST, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed("GET");
