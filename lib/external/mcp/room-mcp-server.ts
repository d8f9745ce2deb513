import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { CallToolResult, ServerNotification, ServerRequest } from "@modelcontextprotocol/sdk/types.js";
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import { z } from "zod";
import type { Database } from "@/db";
import { type Agent, agents, boardEntries, broadcasts, events, rooms } from "@/db/schema";
import { findTeammate } from "@/lib/agents/find-teammate";
import type { ModelCallPolicy } from "@/lib/agents/run-context";
import { postBoardEntry, setRequestStatus } from "@/lib/board/post-entry";
import { boardEntryToDto } from "@/lib/board/board-dto";
import { askOthers } from "@/lib/broadcast/ask-others";
import { leaveNote, takeNotes } from "@/lib/broadcast/agent-notes";
import type { CanvasAuthor } from "@/lib/canvas/author";
import { createNode } from "@/lib/canvas/create-node";
import { createEdge } from "@/lib/canvas/edges";
import { assertNodesInRoom } from "@/lib/canvas/nodes-in-room";
import { updateNode } from "@/lib/canvas/update-node";
import { AppError, badRequest, notFound } from "@/lib/errors";
import { eventPayload, writeRoomEvents } from "@/lib/events/write-room-events";
import { postFinding } from "@/lib/findings/post-finding";
import { describeZodError } from "@/lib/http/request";
import { enforceRate } from "@/lib/limits/rate-limit";
import type { ModelResolver } from "@/lib/models/registry";
import { LIMITS, boardContentSchemas, coordinateSchema, findingSeveritySchema, hexColorSchema } from "@/lib/protocol";
import { createCorrelationId } from "@/lib/protocol/correlation-id";
import type { RoomBus } from "@/lib/realtime/bus";
import { getRoomSnapshot } from "@/lib/rooms/get-room-snapshot";
import { parseRoomSettings } from "@/lib/rooms/room-settings";
import { enqueueRun } from "@/lib/agents/enqueue-run";
import { isExternalModel } from "../external-model";
import { answerAsOutsideAgent } from "../outside-answers";
import type { ExternalCaller } from "../external-tokens";

/** What the MCP server needs of the app: the database, the bus, and how Parley's agents' models are reached. */
export interface McpDeps {
  database: Database;
  bus: RoomBus;
  resolveModel: ModelResolver;
  modelCallPolicy?: ModelCallPolicy;
  now?: () => Date;
}

/** One MCP call as Parley sees it: who makes it (checked again on every request) and its key for retries. */
export interface McpCall {
  caller: ExternalCaller;
  /** Unique to the call within the client's session: a retry of the same request reuses it. */
  idempotencyKey: string;
  signal: AbortSignal;
}

/** What the SDK gives each call: its JSON-RPC id, its cancellation, and what the HTTP request's token resolved to. */
export type CallExtra = Pick<RequestHandlerExtra<ServerRequest, ServerNotification>, "requestId" | "signal" | "authInfo">;

/**
 * Resolves the caller of each call. The token is checked on every HTTP request (not once per
 * session), so a token revoked or expired in the middle of a session stops working at once.
 */
export type ResolveCall = (extra: CallExtra) => McpCall;

const RECENT_FEED = 40;
const ACTIVE_ANNOUNCE_MS = 10_000;
const nodeId = z.string().min(1).max(64);

function json(value: unknown): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(value, null, 2) }] };
}

/**
 * A tool's failure as the client reads it: an error result naming what went wrong and how to
 * fix it. Only bugs are hidden behind a generic message (and logged), as for Parley's own agents.
 */
function failure(error: unknown): CallToolResult {
  const reason =
    error instanceof AppError
      ? { code: error.code, message: error.message }
      : error instanceof z.ZodError
        ? { code: "bad_request", message: describeZodError(error) }
        : null;
  if (!reason) console.error("[parley] mcp tool:", error);
  const body = reason ?? { code: "server_error", message: "Parley could not do this because of an error on its side; try again." };
  return { isError: true, content: [{ type: "text", text: JSON.stringify({ error: body }) }] };
}

/**
 * The MCP server an outside agent talks to: the tools and resources of its one room, each acting
 * as that agent through the same room writes (events, correlation ids, idempotency, limits)
 * Parley's own agents use. Built once per client session.
 */
export function createRoomMcpServer(deps: McpDeps, resolveCall: ResolveCall): McpServer {
  const server = new McpServer(
    { name: "parley", version: "1.0.0" },
    {
      capabilities: { logging: {} },
      instructions:
        "You are a teammate in a Parley room, alongside Parley's own agents and the people watching. " +
        "Start with read_room. Say what you intend (post_intention), put your work on the canvas (create_note, link_notes), " +
        "then post_contribution. Call read_messages now and then: people send you @messages there and teammates' answers arrive there.",
    },
  );
  const db = deps.database.db;
  const now = () => deps.now?.() ?? new Date();

  /** Runs a tool as the caller: checks its token, counts the call against its rate of writes, marks it working. */
  const asCaller = <A>(write: boolean, body: (call: McpCall, agent: Agent, args: A) => Promise<unknown>) => {
    return async (args: A, extra: CallExtra): Promise<CallToolResult> => {
      try {
        const call = resolveCall(extra);
        if (write) await enforceRate(db, "seatWrites", `external:${call.caller.token.id}`);
        announceActive(call.caller.agent);
        return json(await body(call, call.caller.agent, args));
      } catch (error) {
        return failure(error);
      }
    };
  };

  // The roster shows an outside agent working for a minute after a call: telling it every few seconds is enough.
  let announcedAt = 0;
  const announceActive = (agent: Agent) => {
    const at = now();
    if (at.getTime() - announcedAt < ACTIVE_ANNOUNCE_MS) return;
    announcedAt = at.getTime();
    void deps.bus
      .publishEphemeral({ type: "agent.active", room_id: agent.roomId, payload: { agentId: agent.id, at: at.toISOString() } })
      .catch(() => {});
  };

  const authorOf = (agent: Agent): CanvasAuthor => ({ kind: "agent", id: agent.id, name: agent.name });
  const workflow = (agent: Agent, subject: string) =>
    createCorrelationId({ scope: `mcp-${agent.persona.replace(/^external-/, "")}`, subject, now: now() });

  server.registerTool(
    "read_room",
    {
      title: "Read the room",
      description:
        "What the room is working on and where it stands: its task, who is here (Parley's agents, outside agents) and what each is doing, " +
        "the canvas's notes and links, the shared board (themes, intentions, contributions, requests, reactions), findings, and the recent feed.",
      inputSchema: {},
      annotations: { readOnlyHint: true },
    },
    asCaller(false, async (_call, agent) => readRoom(deps, agent)),
  );

  server.registerTool(
    "create_note",
    {
      title: "Create a note",
      description:
        "Put a note on the room's canvas. It goes to the free spot nearest the position you give (or near the others). Returns the note with its id.",
      inputSchema: {
        text: z.string().min(1).max(LIMITS.noteText).describe("The note's text (markdown is shown as text)"),
        kind: z
          .string()
          .regex(/^[a-z][a-z0-9-]*$/, "kind is lower-case letters, digits and dashes")
          .max(LIMITS.nodeKind)
          .optional()
          .describe("What kind of work it is, e.g. note, code, idea, scene; note when omitted"),
        x: coordinateSchema.optional().describe("Where you would like it (canvas units); give both x and y"),
        y: coordinateSchema.optional(),
        color: hexColorSchema.optional().describe("Background colour as #rrggbb"),
      },
    },
    asCaller(true, async (call, agent, args: { text: string; kind?: string; x?: number; y?: number; color?: string }) => {
      if ((args.x === undefined) !== (args.y === undefined)) throw badRequest("Give both x and y, or neither.");
      const node = await createNode(db, agent.roomId, authorOf(agent), args, {
        idempotencyKey: call.idempotencyKey,
        correlationId: workflow(agent, "create_note"),
      });
      return { note: node };
    }),
  );

  server.registerTool(
    "update_note",
    {
      title: "Update a note",
      description:
        "Change a note's text, kind or colour, or move it. Any note of the room may be changed; say why in the feed by posting a contribution.",
      inputSchema: {
        note_id: nodeId.describe("The note's id, from read_room or create_note"),
        text: z.string().max(LIMITS.noteText).optional(),
        kind: z
          .string()
          .regex(/^[a-z][a-z0-9-]*$/)
          .max(LIMITS.nodeKind)
          .optional(),
        color: hexColorSchema.optional(),
        x: coordinateSchema.optional(),
        y: coordinateSchema.optional(),
      },
    },
    asCaller(true, async (call, agent, args: { note_id: string; text?: string; kind?: string; color?: string; x?: number; y?: number }) => {
      const { note_id: id, ...changes } = args;
      if (Object.values(changes).every((value) => value === undefined))
        throw badRequest("Nothing to change: give text, kind, color or x and y.");
      const updated = await updateNode(db, agent.roomId, id, authorOf(agent), changes, {
        idempotencyKey: call.idempotencyKey,
        correlationId: workflow(agent, "update_note"),
      });
      return { updated };
    }),
  );

  server.registerTool(
    "link_notes",
    {
      title: "Link two notes",
      description: 'Connect two notes with a labelled link, e.g. a review that "answers" a draft.',
      inputSchema: {
        source_id: nodeId.describe("The note the link starts from"),
        target_id: nodeId.describe("The note it points to"),
        label: z.string().max(LIMITS.edgeLabel).default("").describe("What the link means"),
      },
    },
    asCaller(true, async (call, agent, args: { source_id: string; target_id: string; label: string }) => {
      const edge = await createEdge(
        db,
        agent.roomId,
        authorOf(agent),
        { sourceId: args.source_id, targetId: args.target_id, label: args.label },
        { idempotencyKey: call.idempotencyKey, correlationId: workflow(agent, "link_notes") },
      );
      return { link: edge };
    }),
  );

  const postEntry = async (
    call: McpCall,
    agent: Agent,
    kind: "theme" | "intention" | "contribution" | "reaction",
    content: Record<string, unknown>,
    correlationId?: string,
  ) => {
    const room = await getSettings(deps, agent.roomId);
    const { events: written } = await writeRoomEvents(
      db,
      agent.roomId,
      async (tx, emit, at) => {
        if (kind === "contribution") await assertNodesInRoom(tx, agent.roomId, (content.nodeIds as string[] | undefined) ?? []);
        return postBoardEntry(tx, emit, {
          roomId: agent.roomId,
          kind,
          content,
          author: { id: agent.id, name: agent.name, agentId: agent.id, runId: null },
          expiryMinutes: room.board_expiry_minutes,
          correlationId: correlationId ?? workflow(agent, kind),
          at,
        });
      },
      { idempotencyKey: call.idempotencyKey, change: { type: "board.posted", request: { by: agent.id, kind, content } } },
    );
    const entry = eventPayload(written, "board.posted").entry;
    return { entry_id: entry.id, kind: entry.kind, expires_at: entry.expiresAt, correlation_id: written[0]?.correlation_id };
  };

  server.registerTool(
    "post_intention",
    {
      title: "Post an intention",
      description:
        "Tell the room what you are about to do, so others build on it rather than duplicate it. It shows in the feed and on the board.",
      inputSchema: { plan: boardContentSchemas.intention.shape.plan },
    },
    asCaller(true, (call, agent, args: { plan: string }) => postEntry(call, agent, "intention", { plan: args.plan })),
  );

  server.registerTool(
    "post_contribution",
    {
      title: "Post a contribution",
      description: "Say what you just added, naming the notes, so the others can react to it.",
      inputSchema: {
        summary: boardContentSchemas.contribution.shape.summary,
        note_ids: z.array(nodeId).max(30).default([]).describe("The notes you created or changed"),
      },
    },
    asCaller(true, (call, agent, args: { summary: string; note_ids: string[] }) =>
      postEntry(call, agent, "contribution", { summary: args.summary, nodeIds: args.note_ids }),
    ),
  );

  server.registerTool(
    "react",
    {
      title: "React to a board entry",
      description: "Answer an entry on the board (an intention, contribution or request) with a short reaction linked to it.",
      inputSchema: {
        entry_id: z.string().min(1).max(64).describe("The board entry you react to, from read_room"),
        response: boardContentSchemas.reaction.shape.response,
      },
    },
    asCaller(true, (call, agent, args: { entry_id: string; response: string }) =>
      postEntry(call, agent, "reaction", { toEntryId: args.entry_id, response: args.response }),
    ),
  );

  server.registerTool(
    "post_finding",
    {
      title: "Post a finding",
      description:
        "Post something the team should know for the rest of the room's life (a bug, a risk, a fact checked). " +
        "The same finding posted again is not repeated.",
      inputSchema: {
        finding: z.string().min(1).max(LIMITS.findingText).describe("What you found, in one or two sentences"),
        severity: findingSeveritySchema.default("medium"),
        note_ids: z.array(nodeId).max(30).default([]).describe("Notes the finding is about"),
      },
    },
    asCaller(true, async (call, agent, args: { finding: string; severity: "low" | "medium" | "high"; note_ids: string[] }) => {
      const settings = await getSettings(deps, agent.roomId);
      const posted = await postFinding(
        db,
        {
          roomId: agent.roomId,
          // An outside agent has no runs: its calls under one token count as one run for the per-run limits.
          run: { id: `mcp:${call.caller.token.id}`, correlationId: workflow(agent, "post_finding") },
          agent: { id: agent.id, name: agent.name },
          finding: { finding: args.finding, severity: args.severity, nodeIds: args.note_ids },
          settings,
        },
        { idempotencyKey: call.idempotencyKey },
      );
      return { finding_id: posted.entry.id, repeated: posted.repeated };
    }),
  );

  server.registerTool(
    "post_request",
    {
      title: "Ask a Parley agent to work",
      description:
        "Ask one of the room's Parley agents to do something (e.g. the Reviewer to review your note). It is started for it; " +
        "with help=true its answer comes back to you as a message (read_messages, or wait here with wait_seconds).",
      inputSchema: {
        target_agent: z.string().min(1).max(80).describe("The agent's name or persona, from read_room"),
        ask: boardContentSchemas.request.shape.ask.describe(`What you want, at most ${LIMITS.boardText} characters`),
        note_ids: z.array(nodeId).max(20).default([]).describe("Notes it should look at"),
        help: z.boolean().default(false).describe("A question whose answer you want back"),
        wait_seconds: z.number().int().min(0).max(120).default(0).describe("How long to wait here for a help answer (0: do not wait)"),
      },
    },
    asCaller(
      true,
      async (call, agent, args: { target_agent: string; ask: string; note_ids: string[]; help: boolean; wait_seconds: number }) => {
        const made = await postRequest(deps, call, agent, args, workflow(agent, args.ask));
        if (!args.help || args.wait_seconds === 0) return made;
        const answer = await waitForMessages(deps, call, agent, args.wait_seconds, (notes) => notes.some((note) => note.kind === "help"));
        return { ...made, messages: answer };
      },
    ),
  );

  server.registerTool(
    "ask_others",
    {
      title: "Ask the others",
      description:
        "Ask the room a question and wait for the answers: in agents mode each Parley agent answers through a shadow that knows its own work; " +
        "in human mode the people in the room answer in their page. Returns {status, responses}.",
      inputSchema: {
        question: z.string().min(1).max(LIMITS.noteText).describe("The question, with enough context to answer it"),
        target_agents: z.array(z.string().min(1).max(80)).max(20).optional().describe("Names of the agents to ask; everyone when omitted"),
        options: z.array(z.string().min(1).max(80)).max(6).optional().describe("Answer choices to offer people, if any"),
      },
    },
    asCaller(true, async (call, agent, args: { question: string; target_agents?: string[]; options?: string[] }) =>
      askOthers(
        { database: deps.database, bus: deps.bus, resolveModel: deps.resolveModel, modelCallPolicy: deps.modelCallPolicy },
        {
          roomId: agent.roomId,
          asker: agent,
          runId: null,
          correlationId: workflow(agent, args.question),
          question: args.question,
          targetAgents: args.target_agents,
          options: args.options,
          idempotencyKey: call.idempotencyKey,
          signal: call.signal,
        },
      ),
    ),
  );

  server.registerTool(
    "read_messages",
    {
      title: "Read your messages",
      description:
        "Your waiting messages, each given once: @messages people sent you, answers to your help requests, and teammates' notes. " +
        "Also lists requests addressed to you and open questions you could answer. With wait_seconds, waits for a message to arrive.",
      inputSchema: {
        wait_seconds: z.number().int().min(0).max(120).default(0).describe("How long to wait when none is waiting (0: answer at once)"),
      },
    },
    asCaller(false, async (call, agent, args: { wait_seconds: number }) => {
      const messages = await waitForMessages(deps, call, agent, args.wait_seconds, (notes) => notes.length > 0);
      return { messages, ...(await addressedTo(deps, agent)) };
    }),
  );

  server.registerTool(
    "answer_request",
    {
      title: "Answer a request",
      description:
        "Answer a request addressed to you (from read_messages): your answer is posted as a reaction to it and the request is marked answered.",
      inputSchema: {
        request_id: z.string().min(1).max(64).describe("The request's entry id"),
        answer: boardContentSchemas.reaction.shape.response,
      },
    },
    asCaller(true, async (call, agent, args: { request_id: string; answer: string }) => answerRequest(deps, call, agent, args)),
  );

  server.registerTool(
    "answer_question",
    {
      title: "Answer a teammate's question",
      description:
        "Answer a question a teammate asked you with ask_others (read_messages lists them under open_questions). " +
        "The asker is waiting: answer briefly, from what you know of your own work.",
      inputSchema: {
        question_id: z.string().min(1).max(64).describe("The question's id, from read_messages"),
        answer: z.string().trim().min(1).max(LIMITS.noteText).describe("Your answer"),
      },
    },
    asCaller(true, (call, agent, args: { question_id: string; answer: string }) =>
      answerAsOutsideAgent(
        deps.database,
        agent,
        { questionId: args.question_id, answer: args.answer },
        { idempotencyKey: call.idempotencyKey },
      ),
    ),
  );

  server.registerResource(
    "task",
    "parley://room/task",
    { title: "The room's task", description: "What the room is working on", mimeType: "text/plain" },
    async (uri, extra) => {
      const call = resolveCall(extra);
      const settings = await getSettings(deps, call.caller.agent.roomId);
      return {
        contents: [{ uri: uri.href, mimeType: "text/plain", text: settings.task || "(The room has no written task: read the canvas.)" }],
      };
    },
  );

  server.registerResource(
    "canvas",
    "parley://room/canvas",
    { title: "The room's canvas", description: "Every note and link on the room's canvas, as JSON", mimeType: "application/json" },
    async (uri, extra) => {
      const call = resolveCall(extra);
      const snapshot = await getRoomSnapshot(db, call.caller.agent.roomId);
      const canvas = { notes: snapshot.nodes.map(noteView), links: snapshot.edges.map(linkView) };
      return { contents: [{ uri: uri.href, mimeType: "application/json", text: JSON.stringify(canvas) }] };
    },
  );

  return server;
}

async function getSettings(deps: McpDeps, roomId: string) {
  const [room] = await deps.database.db.select({ settings: rooms.settings }).from(rooms).where(eq(rooms.id, roomId));
  if (!room) throw notFound("Room");
  return parseRoomSettings(room.settings);
}

function noteView(node: { id: string; kind: string; text: string; authorName: string; x: number; y: number }) {
  return { id: node.id, kind: node.kind, text: node.text, author: node.authorName, x: node.x, y: node.y };
}

function linkView(edge: { id: string; sourceId: string; targetId: string; label: string }) {
  return { id: edge.id, source_id: edge.sourceId, target_id: edge.targetId, label: edge.label };
}

async function readRoom(deps: McpDeps, agent: Agent) {
  const snapshot = await getRoomSnapshot(deps.database.db, agent.roomId);
  const working = new Map(
    snapshot.runs.filter((run) => run.status === "running" || run.status === "queued").map((run) => [run.agentId, run.status]),
  );
  return {
    room: { id: snapshot.room.id, title: snapshot.room.title, template: snapshot.room.template },
    task: snapshot.settings.task,
    broadcast_mode: snapshot.settings.broadcast,
    you: { id: agent.id, name: agent.name },
    agents: snapshot.agents.map((member) => ({
      id: member.id,
      name: member.name,
      persona: member.persona,
      role: member.role,
      kind: isExternalModel(member.model) ? "outside agent" : "parley agent",
      status: working.get(member.id) ?? "idle",
    })),
    notes: snapshot.nodes.map(noteView),
    links: snapshot.edges.map(linkView),
    board: snapshot.board
      .filter((entry) => entry.kind !== "finding")
      .slice(-30)
      .map((entry) => ({ id: entry.id, kind: entry.kind, by: entry.agentName, content: entry.content, status: entry.requestStatus })),
    findings: snapshot.findings
      .slice(-20)
      .map((finding) => ({ id: finding.id, by: finding.agentName, finding: finding.finding, severity: finding.severity })),
    recent_feed: snapshot.recentEvents.slice(-RECENT_FEED).map((event) => ({
      seq: event.seq,
      type: event.type,
      by: event.agent_name,
      to: event.target_agent,
      correlation_id: event.correlation_id,
      at: event.timestamp,
    })),
  };
}

/** A request on the board to a Parley agent, with a run queued for it: request_agent's and request_help's path. */
export async function postRequest(
  deps: McpDeps,
  call: McpCall,
  agent: Agent,
  args: { target_agent: string; ask: string; note_ids: string[]; help: boolean },
  correlationId: string,
) {
  const db = deps.database.db;
  const [team, settings] = await Promise.all([
    db.select().from(agents).where(eq(agents.roomId, agent.roomId)).orderBy(asc(agents.position)),
    getSettings(deps, agent.roomId),
  ]);
  const others = team.filter((member) => member.id !== agent.id && !isExternalModel(member.model));
  const target = findTeammate(others, args.target_agent);
  if (!target) {
    throw badRequest(
      `${args.target_agent} is not a Parley agent of this room. Ask one of: ${others.map((member) => member.name).join(", ")}.`,
    );
  }
  const { events: written, result } = await writeRoomEvents(
    db,
    agent.roomId,
    async (tx, emit, at) => {
      const unique = [...new Set(args.note_ids)];
      await assertNodesInRoom(tx, agent.roomId, unique);
      const entry = await postBoardEntry(tx, emit, {
        roomId: agent.roomId,
        kind: "request",
        content: { targetPersona: target.persona, ask: args.ask, refNodeIds: unique, ...(args.help ? { help: true } : {}) },
        author: { id: agent.id, name: agent.name, agentId: agent.id, runId: null },
        expiryMinutes: settings.board_expiry_minutes,
        correlationId,
        requestStatus: "queued",
        at,
      });
      const run = await enqueueRun(tx, emit, {
        roomId: agent.roomId,
        agentId: target.id,
        trigger: "request",
        requestedBy: { id: agent.id, name: agent.name },
        prompt: args.help ? `${agent.name} asks for your help: ${args.ask}` : `${agent.name} asks you: ${args.ask}`,
        chainDepth: 1,
        correlationId,
        selectedNodeIds: unique,
        requestEntryId: entry.id,
        at,
      });
      return { entryId: entry.id, runId: run.id };
    },
    { idempotencyKey: call.idempotencyKey, change: { type: "board.posted", request: { by: agent.id, request: args } } },
  );
  const entryId = result?.entryId ?? eventPayload(written, "board.posted").entry.id;
  return { request_id: entryId, target: target.name, status: "queued", correlation_id: written[0]?.correlation_id };
}

/**
 * Takes the caller's waiting messages, waiting up to `seconds` for them to satisfy `enough`
 * (woken by the room's events, with a slow poll behind in case a notification is missed).
 * Each message is handed out once, as it is to Parley's own agents.
 */
async function waitForMessages(
  deps: McpDeps,
  call: McpCall,
  agent: Agent,
  seconds: number,
  enough: (notes: { kind?: string }[]) => boolean,
) {
  const reader = { roomId: agent.roomId, agentId: agent.id, agentName: agent.name, runId: `mcp:${call.caller.token.id}`, step: 0 };
  const taken: { id: string; text: string; kind?: string }[] = [...(await takeNotes(deps.database.db, reader))];
  const deadline = Date.now() + seconds * 1000;
  while (!enough(taken) && Date.now() < deadline && !call.signal.aborted) {
    await new Promise<void>((resolve) => {
      const stop = () => {
        clearTimeout(timer);
        unsubscribe();
        call.signal.removeEventListener("abort", stop);
        resolve();
      };
      const timer = setTimeout(stop, Math.min(2000, Math.max(0, deadline - Date.now())));
      const unsubscribe = deps.bus.subscribe(agent.roomId, (delivery) => {
        if (delivery.kind === "resync" || ("seq" in delivery.event && delivery.event.target_agent === agent.id)) stop();
      });
      call.signal.addEventListener("abort", stop);
    });
    taken.push(...(await takeNotes(deps.database.db, reader)));
  }
  return taken.map((note) => ({ id: note.id, kind: note.kind ?? "note", text: note.text }));
}

/** Requests on the board addressed to the caller, and the questions it was asked that are still open. */
async function addressedTo(deps: McpDeps, agent: Agent) {
  const db = deps.database.db;
  const [requests, questions] = await Promise.all([
    db
      .select()
      .from(boardEntries)
      .where(
        and(
          eq(boardEntries.roomId, agent.roomId),
          eq(boardEntries.kind, "request"),
          eq(boardEntries.targetPersona, agent.persona),
          inArray(boardEntries.requestStatus, ["open", "queued", "in_progress"]),
        ),
      )
      .orderBy(asc(boardEntries.createdAt))
      .limit(20),
    db
      .select()
      .from(broadcasts)
      .where(and(eq(broadcasts.roomId, agent.roomId), inArray(broadcasts.status, ["pending", "open"])))
      .orderBy(asc(broadcasts.createdAt))
      .limit(20),
  ]);
  return {
    requests: requests.map((entry) => ({
      request_id: entry.id,
      from: entry.agentName,
      ask: entry.content.ask,
      note_ids: entry.content.refNodeIds,
    })),
    open_questions: questions
      .filter((question) => question.mode === "agents" && question.status === "pending" && question.targetAgentIds.includes(agent.id))
      .map((question) => ({ question_id: question.id, from: question.agentName, question: question.question, mode: question.mode })),
  };
}

/** Answers a request addressed to the caller: a reaction linked to it, and the request marked answered, in one write. */
async function answerRequest(deps: McpDeps, call: McpCall, agent: Agent, args: { request_id: string; answer: string }) {
  const db = deps.database.db;
  const settings = await getSettings(deps, agent.roomId);
  const { events: written } = await writeRoomEvents(
    db,
    agent.roomId,
    async (tx, emit, at) => {
      const [request] = await tx
        .select()
        .from(boardEntries)
        .where(and(eq(boardEntries.id, args.request_id), eq(boardEntries.roomId, agent.roomId), eq(boardEntries.kind, "request")));
      if (!request) throw badRequest(`There is no request ${args.request_id} in this room; read_messages lists those addressed to you.`);
      if (request.targetPersona !== agent.persona) throw badRequest(`That request is addressed to ${request.targetPersona}, not to you.`);
      if (!["open", "queued", "in_progress"].includes(request.requestStatus ?? "")) {
        throw badRequest(`That request is ${request.requestStatus} already.`);
      }
      // The answer joins the workflow of the request it answers.
      const [asked] = await tx
        .select({ correlationId: events.correlationId })
        .from(events)
        .where(
          and(eq(events.roomId, agent.roomId), eq(events.type, "board.posted"), sql`${events.payload} -> 'entry' ->> 'id' = ${request.id}`),
        )
        .limit(1);
      const correlationId = asked?.correlationId;
      const reaction = await postBoardEntry(tx, emit, {
        roomId: agent.roomId,
        kind: "reaction",
        content: { toEntryId: request.id, response: args.answer },
        author: { id: agent.id, name: agent.name, agentId: agent.id, runId: null },
        expiryMinutes: settings.board_expiry_minutes,
        correlationId,
        at,
      });
      await setRequestStatus(tx, emit, {
        roomId: agent.roomId,
        entryId: request.id,
        status: "answered",
        runId: null,
        actor: { id: agent.id, name: agent.name },
        correlationId,
      });
      // A help request's answer goes back to the asker as a message, as a Parley helper's does.
      if (request.content.help === true && request.agentId) {
        await leaveNote(tx, {
          roomId: agent.roomId,
          agentId: request.agentId,
          kind: "help",
          text: `${agent.name} answered your help request ("${String(request.content.ask ?? "").slice(0, 120)}"): ${args.answer}`,
          at,
        });
        emit({
          type: "help.answered",
          actor: { id: agent.id, name: agent.name },
          targetAgent: request.agentId,
          correlationId,
          payload: {
            requestEntryId: request.id,
            askerAgentId: request.agentId,
            helperAgentId: agent.id,
            answered: true,
            text: args.answer,
          },
        });
      }
      return boardEntryToDto(reaction);
    },
    { idempotencyKey: call.idempotencyKey, change: { type: "board.posted", request: { by: agent.id, answer: args } } },
  );
  return { reaction_id: eventPayload(written, "board.posted").entry.id, status: "answered" };
}
