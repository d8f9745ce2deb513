import { isExternalModel } from "@/lib/external/external-model";
import { and, count, eq } from "drizzle-orm";
import { z } from "zod";
import { type Agent, runs } from "@/db/schema";
import { postBoardEntry } from "@/lib/board/post-entry";
import { refuseAskingWhileAlone } from "../team";
import { assertNodesInRoom } from "@/lib/canvas/nodes-in-room";
import { earlierWrite, eventPayload, writeRoomEvents } from "@/lib/events/write-room-events";
import { LIMITS, boardContentSchemas } from "@/lib/protocol";
import { refuseRepeatedExchange } from "@/lib/limits/repeated-exchanges";
import { enqueueRun } from "../enqueue-run";
import { startsAtOnce } from "../starts-at-once";
import type { ActiveRun } from "../run-context";
import { type RequestKind, type RequestReservation, reserveRequest } from "./reserve-request";
import { type ToolWrite, writingTool } from "./writing-tool";

/** A request written (or found written by an earlier attempt: `waitingAhead` null). */
interface MadeRequest {
  entryId: string;
  runId: string | null;
  target: Agent | undefined;
  /**
   * Whether the target's run started, or starts, without waiting: when the request is written, that
   * the target has no run of its own ahead of it and the room has a slot free for it; when it was
   * written earlier, that the run has started since or starts at once now.
   */
  startsAtOnce: boolean;
  waitingAhead: number | null;
}

interface RequestInput {
  targetPersona: string;
  ask: string;
  refNodeIds: string[];
  kind: RequestKind;
}

/** What request_agent tells the model of the request it made, or found made. */
function requestAgentAnswer(made: MadeRequest) {
  const name = made.target?.name ?? "The agent";
  return {
    requestId: made.entryId,
    runId: made.runId,
    status: "queued" as const,
    note:
      made.target && isExternalModel(made.target.model)
        ? `${name} is an outside agent: it sees your request when its client reads its messages.`
        : made.waitingAhead !== null
          ? made.waitingAhead > 0
            ? `${name} will start after ${made.waitingAhead} queued run(s).`
            : `${name} will start as soon as a slot is free.`
          : `${name} was already asked; the request stands.`,
  };
}

/** What request_help tells the model: the request, and whether its target started on it at once. */
function helpAnswer(made: MadeRequest) {
  return { helpId: made.entryId, status: made.startsAtOnce ? ("started" as const) : ("queued" as const) };
}

/**
 * request_agent and request_help (docs/behaviour/creative-canvas.md, docs/behaviour/team-memory.md):
 * one mechanism. Each writes a request on the board and queues a run of the target persona with
 * the referenced nodes selected; a help request is the reply-to mode, in which the target's
 * final answer goes back to the asker as a message. Chains are limited in depth, each run has
 * an allowance of each kind, and the new run waits its turn under the room's concurrency limit.
 * The asker never waits for the answer.
 */
export function createRequestTools(active: ActiveRun) {
  const { database, run, agent, team, settings } = active;

  /**
   * The answer to a request an earlier attempt of this run already wrote: the same request and run,
   * and whether that run has started or starts at once now. The earlier attempt's answer was never
   * kept (the step that got it is being taken again); this is the same answer unless the queue has
   * moved since, and then it is what is true by now.
   */
  const requestedEarlier = async (entryId: string): Promise<MadeRequest> => {
    const [queued] = await database.db
      .select({ id: runs.id, agentId: runs.agentId, status: runs.status, startedAt: runs.startedAt, createdAt: runs.createdAt })
      .from(runs)
      .where(and(eq(runs.roomId, run.roomId), eq(runs.requestEntryId, entryId)));
    const target = team.find((member) => member.id === queued?.agentId);
    const started =
      !!queued &&
      (queued.startedAt !== null || (queued.status === "queued" && (await startsAtOnce(database.db, run.roomId, queued.agentId, queued))));
    return { entryId, runId: queued?.id ?? null, target, startsAtOnce: started, waitingAhead: null };
  };

  const keyed = (toolName: string, callInput: unknown, write: ToolWrite) => ({
    idempotencyKey: write.idempotencyKey,
    change: { type: "board.posted" as const, request: { by: agent.id, tool: toolName, input: callInput } },
  });

  /** Looked up before the request is reserved: the earlier write has spent it already. */
  const earlierRequest = async (toolName: string, callInput: unknown, write: ToolWrite): Promise<MadeRequest | null> => {
    const earlier = await earlierWrite(database.db, run.roomId, keyed(toolName, callInput, write));
    return earlier ? requestedEarlier(earlier.payload.entry.id) : null;
  };

  const makeRequest = async (
    toolName: string,
    callInput: unknown,
    request: RequestInput,
    write: ToolWrite,
    reservation: RequestReservation | null,
  ): Promise<MadeRequest> => {
    if (!reservation) throw new Error(`${toolName} writes only with a reserved request.`);
    const { target, depth } = reservation;
    const { ask, refNodeIds, kind } = request;
    await refuseRepeatedExchange(active, [target], ask);
    const written = writeRoomEvents(
      database.db,
      run.roomId,
      async (tx, emit, at) => {
        // The team the run was given may be older than the stage under way: who may be asked is read here.
        await refuseAskingWhileAlone(tx, run.roomId, agent, target);
        const unique = [...new Set(refNodeIds)];
        await assertNodesInRoom(tx, run.roomId, unique);
        const entry = await postBoardEntry(tx, emit, {
          roomId: run.roomId,
          kind: "request",
          content: { targetPersona: target.persona, ask, refNodeIds: unique, ...(kind === "help" ? { help: true } : {}) },
          author: { id: agent.id, name: agent.name, agentId: agent.id, runId: run.id },
          expiryMinutes: settings.board_expiry_minutes,
          correlationId: run.correlationId,
          requestStatus: "queued",
          at,
        });
        // An outside agent's own client serves the request (it reads it with read_messages): Parley starts no run for it.
        if (isExternalModel(target.model)) return { entryId: entry.id, runId: null, waitingAhead: null, startsAtOnce: false };
        const [ahead, atOnce] = await Promise.all([
          tx
            .select({ value: count() })
            .from(runs)
            .where(and(eq(runs.roomId, run.roomId), eq(runs.status, "queued"))),
          startsAtOnce(tx, run.roomId, target.id),
        ]);
        const queued = await enqueueRun(tx, emit, {
          roomId: run.roomId,
          agentId: target.id,
          trigger: "request",
          requestedBy: { id: agent.id, name: agent.name },
          prompt: kind === "help" ? `${agent.name} asks for your help: ${ask}` : `${agent.name} asks you: ${ask}`,
          parentRunId: run.id,
          chainDepth: depth,
          correlationId: run.correlationId,
          selectedNodeIds: unique,
          requestEntryId: entry.id,
          at,
        });
        return {
          entryId: entry.id,
          runId: queued.id,
          waitingAhead: Number(ahead[0]?.value ?? 0),
          startsAtOnce: atOnce,
        };
      },
      { ...keyed(toolName, callInput, write), carry: write.carry },
    );
    const { result, events } = await written;
    if (!result) return requestedEarlier(eventPayload(events, "board.posted").entry.id);
    return { ...result, target };
  };

  const personas = team.map((member) => `${member.persona} (${member.name})`).join(", ");
  return {
    request_agent: writingTool(active, "request_agent", {
      description:
        "Ask another agent persona to respond to your work: to extend it, answer it or build on it. " +
        `The requested agent is started automatically. At most ${settings.max_requests_per_run} per run.`,
      inputSchema: z.object({
        targetPersona: z.string().min(1).describe(`The persona to invoke: ${personas}`),
        // The prompt is stored as the request's ask, so it takes the ask's limits and the model's mistakes are reported as its own.
        prompt: boardContentSchemas.request.shape.ask.describe(
          `What you want the other agent to do, with the context it needs (at most ${LIMITS.boardText} characters)`,
        ),
        refNodeIds: z.array(z.string()).max(20).default([]).describe("Node ids the target agent should build upon"),
      }),
      spends: {
        earlier: async (input, write) => {
          const made = await earlierRequest("request_agent", input, write);
          return made ? requestAgentAnswer(made) : null;
        },
        reserve: (input) => reserveRequest(active, input.targetPersona, "work"),
      },
      write: async (input, write, reservation) => {
        const request = { targetPersona: input.targetPersona, ask: input.prompt, refNodeIds: input.refNodeIds, kind: "work" as const };
        return requestAgentAnswer(await makeRequest("request_agent", input, request, write, reservation));
      },
    }),
    request_help: writingTool(active, "request_help", {
      description:
        "Ask a teammate a question and keep working: you do not wait. Their answer arrives as a message in a later step " +
        `(or your next run). Not to yourself; at most ${settings.max_help_per_run} per run. ` +
        "The status says whether they started on it at once or it waits for a run of theirs or for a free slot in the room.",
      inputSchema: z.object({
        target: z.string().min(1).describe(`Who to ask: ${personas}`),
        question: boardContentSchemas.request.shape.ask.describe(`Your question, at most ${LIMITS.boardText} characters`),
      }),
      spends: {
        earlier: async (input, write) => {
          const made = await earlierRequest("request_help", input, write);
          return made ? helpAnswer(made) : null;
        },
        reserve: (input) => reserveRequest(active, input.target, "help"),
      },
      write: async (input, write, reservation) => {
        const request = { targetPersona: input.target, ask: input.question, refNodeIds: [], kind: "help" as const };
        return helpAnswer(await makeRequest("request_help", input, request, write, reservation));
      },
    }),
  };
}
