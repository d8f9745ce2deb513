import { DefaultRequestHandler, InMemoryTaskStore } from "@a2a-js/sdk/server";
import { and, eq, sql } from "drizzle-orm";
import { agents, events, rooms } from "@/db/schema";
import { AppError, forbidden } from "@/lib/errors";
import { bearerToken } from "@/lib/http/request";
import { LIMITS } from "@/lib/protocol";
import { createCorrelationId } from "@/lib/protocol/correlation-id";
import { parseRoomSettings } from "@/lib/rooms/room-settings";
import { isExternalModel } from "../external-model";
import { type ExternalCaller, verifyExternalToken } from "../external-tokens";
import { type McpDeps, postRequest } from "../mcp/room-mcp-server";
import { agentCard, messageText, runA2aTask } from "./a2a-events";
import { agentCardResponse, serveA2aJsonRpc } from "./a2a-web-handler";

/** How long an A2A caller's task waits for the Parley agent's answer before it fails. */
const ANSWER_WAIT_MS = 5 * 60_000;
const RECHECK_MS = 1000;

const globalForTasks = globalThis as unknown as { __parleyA2aTasks?: InMemoryTaskStore };
/** This process's A2A tasks, so a caller can look one up (`GetTask`) after sending its message. */
function taskStore(): InMemoryTaskStore {
  globalForTasks.__parleyA2aTasks ??= new InMemoryTaskStore();
  return globalForTasks.__parleyA2aTasks;
}

function refusal(error: AppError): Response {
  return Response.json(error.toJSON(), { status: error.status, headers: error.status === 401 ? { "WWW-Authenticate": "Bearer" } : {} });
}

/** The answer to a help request once its helper gave it (`help.answered`), or null when `signal` ends the wait. */
async function awaitHelpAnswer(
  deps: McpDeps,
  roomId: string,
  requestEntryId: string,
  signal: AbortSignal,
): Promise<{ answered: boolean; text: string } | null> {
  while (!signal.aborted) {
    const [row] = await deps.database.db
      .select({ payload: events.payload })
      .from(events)
      .where(
        and(eq(events.roomId, roomId), eq(events.type, "help.answered"), sql`${events.payload} ->> 'requestEntryId' = ${requestEntryId}`),
      )
      .limit(1);
    if (row) return { answered: row.payload.answered === true, text: String(row.payload.text ?? "") };
    await new Promise<void>((resolve) => {
      const stop = () => {
        clearTimeout(timer);
        unsubscribe();
        signal.removeEventListener("abort", stop);
        resolve();
      };
      const timer = setTimeout(stop, RECHECK_MS);
      const unsubscribe = deps.bus.subscribe(roomId, (delivery) => {
        if (delivery.kind === "resync" || delivery.event.type === "help.answered") stop();
      });
      signal.addEventListener("abort", stop);
    });
  }
  return null;
}

/**
 * One of a room's Parley agents as an A2A agent (when the room publishes cards, `a2a_agents`):
 * GET gives its card, POST takes the A2A JSON-RPC binding. A message is the caller's help request
 * to the agent, asked as the outside agent its token names (so the room sees who asked, with the
 * same events, limits and correlation id), and the agent's answer completes the A2A task.
 */
export async function serveParleyAgentA2a(deps: McpDeps, request: Request, params: { roomId: string; agentId: string }): Promise<Response> {
  const db = deps.database.db;
  const [found] = await db
    .select({ agent: agents, settings: rooms.settings })
    .from(agents)
    .innerJoin(rooms, eq(rooms.id, agents.roomId))
    .where(and(eq(agents.id, params.agentId), eq(agents.roomId, params.roomId)));
  if (!found || isExternalModel(found.agent.model)) return refusal(new AppError(404, "not_found", "There is no such agent in this room."));
  if (!parseRoomSettings(found.settings).a2a_agents) {
    return refusal(
      new AppError(404, "not_found", "This room does not publish its agents over A2A; an admin can turn it on in the room's settings."),
    );
  }
  const { agent } = found;
  const url = new URL(request.url);
  const card = agentCard({
    name: `${agent.name} (Parley)`,
    description: `${agent.role}: ${agent.description} Send it a message and it answers as a teammate of its Parley room.`,
    url: `${url.origin}${url.pathname}`,
    streaming: true,
    bearer: true,
    skills: [{ id: "help", name: `Ask ${agent.name}`, description: `${agent.name} answers a question from its work in the room.` }],
  });
  if (request.method === "GET") return agentCardResponse(card);
  if (request.method !== "POST")
    return refusal(new AppError(405, "method_not_allowed", `${request.method} is not allowed here; use GET or POST.`));

  let caller: ExternalCaller;
  try {
    caller = await verifyExternalToken(db, bearerToken(request));
    if (caller.token.roomId !== params.roomId) throw forbidden("This token belongs to another room.");
  } catch (error) {
    if (error instanceof AppError) return refusal(error);
    throw error;
  }
  const handler = new DefaultRequestHandler(card, taskStore(), {
    execute: async (context, bus) => {
      const abort = new AbortController();
      const timer = setTimeout(() => abort.abort(), ANSWER_WAIT_MS);
      await runA2aTask(bus, { taskId: context.taskId, contextId: context.contextId, userMessage: context.userMessage }, async () => {
        const ask = messageText(context.userMessage).slice(0, LIMITS.boardText);
        if (!ask) throw new Error("The message has no text to ask.");
        const call = { caller, idempotencyKey: `a2a:${context.taskId}`, signal: abort.signal };
        const correlationId = createCorrelationId({ scope: "a2a", subject: ask });
        const made = await postRequest(deps, call, caller.agent, { target_agent: agent.id, ask, note_ids: [], help: true }, correlationId);
        const answer = await awaitHelpAnswer(deps, params.roomId, made.request_id, abort.signal);
        if (!answer) throw new Error(`${agent.name} did not answer in time.`);
        if (!answer.answered) throw new Error(`${agent.name} could not answer: ${answer.text}`);
        return answer.text;
      }).finally(() => clearTimeout(timer));
    },
    cancelTask: async () => {},
  });
  return serveA2aJsonRpc(handler, request);
}
