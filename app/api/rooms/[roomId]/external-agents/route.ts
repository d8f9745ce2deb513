// GET  /api/rooms/[roomId]/external-agents — the room's outside agents' tokens (participants and admins)
// POST /api/rooms/[roomId]/external-agents — invite an outside agent: its token, shown once, and its MCP client set-up
import { inviteExternalAgent, inviteExternalAgentSchema, listExternalTokens } from "@/lib/external/external-tokens";
import { inviterAccess } from "@/lib/external/room-invite-access";
import { mcpSetup } from "@/lib/external/setup-snippets";
import { methodsNotAllowed } from "@/lib/http/method-not-allowed";
import { checkIdempotencyKey, readJsonBody, respond } from "@/lib/http/request";

export const dynamic = "force-dynamic";

export async function GET(request: Request, { params }: { params: Promise<{ roomId: string }> }) {
  return respond(async () => {
    const { roomId } = await params;
    const { runtime } = await inviterAccess(request, roomId, { write: false });
    return Response.json({ tokens: await listExternalTokens(runtime.database.db, roomId) });
  }, request);
}

export async function POST(request: Request, { params }: { params: Promise<{ roomId: string }> }) {
  return respond(async () => {
    const { roomId } = await params;
    const { runtime, actor } = await inviterAccess(request, roomId, { write: true });
    const idempotencyKey = checkIdempotencyKey(request.headers.get("idempotency-key"));
    const input = await readJsonBody(request, inviteExternalAgentSchema);
    const { token, tokenInfo } = await inviteExternalAgent(runtime.database.db, roomId, actor, input, { idempotencyKey });
    const setup = token ? mcpSetup(new URL(request.url).origin, roomId, tokenInfo.agentName, token) : null;
    return Response.json({ token, tokenInfo, setup }, { status: 201 });
  }, request);
}

// Any other method: a 405 in JSON naming these.
export const { PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed("GET", "POST");
