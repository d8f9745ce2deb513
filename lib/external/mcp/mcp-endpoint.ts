import { randomUUID } from "node:crypto";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { AppError, forbidden } from "@/lib/errors";
import { bearerToken } from "@/lib/http/request";
import type { StoredEvent } from "@/lib/protocol";
import { type ExternalCaller, externalTokenErrors, verifyExternalToken } from "../external-tokens";
import { type CallExtra, type McpCall, type McpDeps, createRoomMcpServer } from "./room-mcp-server";

/** A client's session: its transport and server, and the token that opened it. */
interface Session {
  id: string;
  tokenId: string;
  transport: WebStandardStreamableHTTPServerTransport;
  server: McpServer;
  lastSeenAt: number;
  stopListening: () => void;
}

/** A session nobody used for this long is closed; its client starts a new one (the SDK does so on a 404). */
const SESSION_IDLE_MS = 30 * 60_000;

const globalForSessions = globalThis as unknown as { __parleyMcpSessions?: Map<string, Session> };
/** This process's sessions (kept across hot reloads in development). */
function sessions(): Map<string, Session> {
  globalForSessions.__parleyMcpSessions ??= new Map();
  return globalForSessions.__parleyMcpSessions;
}

function closeSession(session: Session): void {
  sessions().delete(session.id);
  session.stopListening();
  void session.server.close().catch(() => {});
}

function closeIdleSessions(now: number): void {
  for (const session of sessions().values()) if (now - session.lastSeenAt > SESSION_IDLE_MS) closeSession(session);
}

function isCaller(value: unknown): value is ExternalCaller {
  return typeof value === "object" && value !== null && "token" in value && "agent" in value;
}

/** The caller the HTTP request's token resolved to, handed to the tools through the SDK's `authInfo`. */
function callOf(sessionId: string, extra: CallExtra): McpCall {
  const caller = extra.authInfo?.extra?.caller;
  if (!isCaller(caller)) throw externalTokenErrors.missing();
  // JSON-RPC ids are unique within a session, and a retried request keeps its id: a retry writes nothing new.
  return { caller, idempotencyKey: `mcp:${sessionId}:${String(extra.requestId)}`, signal: extra.signal };
}

/**
 * Tells a listening client (one that opened the session's GET stream) about what is addressed
 * to its agent as it happens: people's @messages and answers to its help requests. Either way
 * they wait for read_messages; this only says they are there.
 */
function forwardAddressedEvents(server: McpServer, agentId: string, event: StoredEvent): void {
  if (event.type === "broadcast.asked" && event.payload.broadcast.targetAgentIds.includes(agentId)) {
    const { id, agentName, question } = event.payload.broadcast;
    const data = { kind: "question", question_id: id, from: agentName, text: question, hint: "answer with answer_question" };
    void server.server.sendLoggingMessage({ level: "notice", logger: "parley", data }).catch(() => {});
    return;
  }
  if (event.target_agent !== agentId) return;
  if (event.type !== "command.sent" && event.type !== "help.answered") return;
  const data =
    event.type === "command.sent"
      ? { kind: "message", from: event.payload.command.senderName, text: event.payload.command.text, hint: "call read_messages" }
      : { kind: "help_answer", from: event.agent_name, text: event.payload.text, hint: "call read_messages" };
  void server.server.sendLoggingMessage({ level: "notice", logger: "parley", data }).catch(() => {});
}

function refusal(error: unknown): Response {
  if (error instanceof AppError) {
    const headers = { ...error.headers, ...(error.status === 401 ? { "WWW-Authenticate": `Bearer error="${error.code}"` } : {}) };
    return Response.json(error.toJSON(), { status: error.status, headers });
  }
  console.error("[parley] mcp endpoint:", error);
  return Response.json(
    { error: { code: "server_error", message: "Parley could not answer because of an error on its side." } },
    { status: 500 },
  );
}

/**
 * Serves an MCP request (Streamable HTTP): checks the bearer token (and, on a room's own URL,
 * that the token is that room's), then hands the request to the client's session, or opens
 * one on `initialize`. Sessions live in this process: behind several instances, a client's
 * requests must reach the instance that opened its session.
 */
export async function handleMcpRequest(deps: McpDeps, request: Request, options: { roomId?: string } = {}): Promise<Response> {
  try {
    const now = deps.now?.() ?? new Date();
    closeIdleSessions(now.getTime());
    const caller = await verifyExternalToken(deps.database.db, bearerToken(request), now);
    if (options.roomId !== undefined && caller.token.roomId !== options.roomId) {
      throw forbidden("This token belongs to another room: an outside agent sees and writes only the room it was invited to.");
    }
    const sessionId = request.headers.get("mcp-session-id");
    let session = sessionId ? sessions().get(sessionId) : undefined;
    if (sessionId && !session) {
      return Response.json(
        {
          jsonrpc: "2.0",
          error: { code: -32001, message: "Session not found: it ended or was opened on another instance; initialize again." },
          id: null,
        },
        { status: 404 },
      );
    }
    if (session && session.tokenId !== caller.token.id) throw forbidden("This session was opened with another token.");
    if (!session) session = await openSession(deps, caller);
    session.lastSeenAt = now.getTime();
    const authInfo = { token: caller.token.id, clientId: caller.agent.id, scopes: [`room:${caller.token.roomId}`], extra: { caller } };
    return await session.transport.handleRequest(request, { authInfo });
  } catch (error) {
    return refusal(error);
  }
}

async function openSession(deps: McpDeps, caller: ExternalCaller): Promise<Session> {
  const id = randomUUID();
  const server = createRoomMcpServer(deps, (extra) => callOf(id, extra));
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => id,
    onsessioninitialized: () => {
      sessions().set(id, session);
    },
    onsessionclosed: () => closeSession(session),
  });
  const stopListening = deps.bus.subscribe(caller.agent.roomId, (delivery) => {
    if (delivery.kind === "event" && "seq" in delivery.event) forwardAddressedEvents(server, caller.agent.id, delivery.event);
  });
  const session: Session = { id, tokenId: caller.token.id, transport, server, lastSeenAt: Date.now(), stopListening };
  await server.connect(transport);
  // A request that is not an initialize gets the SDK's own 400 and leaves no session behind.
  setTimeout(() => {
    if (!sessions().has(id)) closeSession(session);
  }, 60_000).unref?.();
  return session;
}
