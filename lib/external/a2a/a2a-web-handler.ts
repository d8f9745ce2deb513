import { A2A_VERSION_HEADER, type AgentCard } from "@a2a-js/sdk";
import {
  type A2ARequestHandler,
  JsonRpcTransportHandler,
  UnauthenticatedUser,
  type User,
  defaultServerCallContextBuilder,
  validateVersion,
} from "@a2a-js/sdk/server";

const SSE_HEADERS = {
  "Content-Type": "text/event-stream",
  "Cache-Control": "no-cache, no-transform",
  "X-Accel-Buffering": "no",
};

/** An A2A JSON-RPC error answer, as the SDK's own transports write it. */
function rpcError(id: unknown, error: unknown): Response {
  return Response.json({ jsonrpc: "2.0", id: id ?? null, error: JsonRpcTransportHandler.mapToJSONRPCError(error) });
}

/**
 * Serves an A2A agent's JSON-RPC binding with web `Request`/`Response` (a route handler, or any
 * server with the Fetch API), as the SDK's Express adapter does: one answer, or a stream of
 * server-sent events for `SendStreamingMessage` and `SubscribeToTask`.
 */
export async function serveA2aJsonRpc(
  handler: A2ARequestHandler,
  request: Request,
  user: User = new UnauthenticatedUser(),
): Promise<Response> {
  let body: { id?: unknown; method?: unknown } & Record<string, unknown>;
  try {
    body = (await request.json()) as typeof body;
  } catch {
    return Response.json({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "The request body is not JSON." } });
  }
  try {
    const context = defaultServerCallContextBuilder({
      extensions: undefined,
      user,
      headers: Object.fromEntries(request.headers),
      requestedVersion: request.headers.get(A2A_VERSION_HEADER) ?? undefined,
    });
    validateVersion(context.requestedVersion, await handler.getAgentCard(), "JSONRPC");
    const answer = await new JsonRpcTransportHandler(handler).handle(body, context);
    if (!(Symbol.asyncIterator in answer)) return Response.json(answer);
    const encoder = new TextEncoder();
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const next = await answer.next();
          if (next.done) controller.close();
          else controller.enqueue(encoder.encode(`data: ${JSON.stringify(next.value)}\n\n`));
        } catch (error) {
          const failure = { jsonrpc: "2.0", id: body.id ?? null, error: JsonRpcTransportHandler.mapToJSONRPCError(error) };
          controller.enqueue(encoder.encode(`event: error\ndata: ${JSON.stringify(failure)}\n\n`));
          controller.close();
        }
      },
      async cancel() {
        await answer.return(undefined);
      },
    });
    return new Response(stream, { headers: SSE_HEADERS });
  } catch (error) {
    return rpcError(body.id, error);
  }
}

/** An agent card as its URL serves it. */
export function agentCardResponse(card: AgentCard): Response {
  return new Response(JSON.stringify(card), { headers: { "Content-Type": "application/json", "Cache-Control": "no-cache" } });
}
