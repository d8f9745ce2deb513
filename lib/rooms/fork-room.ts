import { randomUUID } from "node:crypto";
import { and, desc, eq, gt, lte } from "drizzle-orm";
import { z } from "zod";
import type { Db, DbOrTx, Tx } from "@/db";
import { type Agent, adminActions, boardEntries, canvasEdges, canvasNodes, seats, vaultInsights, vaultTasks } from "@/db/schema";
import { hashToken, randomToken } from "@/lib/auth/tokens";
import { badRequest, forbidden, notFound } from "@/lib/errors";
import { type Actor, writeRoomEventsInTransaction } from "@/lib/events/write-room-events";
import { VAULT_LIMITS } from "@/lib/knowledge/vault";
import { type BoardEntryDto, type CanvasEdgeDto, type CanvasNodeDto, LIMITS, type PayloadOf } from "@/lib/protocol";
import { createRoom } from "./create-room";
import { findRoom, listAgentRows } from "./list-rooms";
import { type RoomAt, roomAt } from "./room-at";
import { findTemplate } from "./templates";

export const forkRoomInputSchema = z.strictObject({
  /** The event to continue after: the fork starts with the room as it was right after it. */
  at: z.number().int().positive(),
  title: z.string().trim().min(1, "Give the room a title").max(LIMITS.roomTitle).optional(),
});
export type ForkRoomInput = z.infer<typeof forkRoomInputSchema>;

/** Who asks for a fork: a person seated in the origin (who is seated in the fork too), or an admin. */
export type ForkRequester = { kind: "seat"; displayName: string } | { kind: "admin" };

export interface ForkResult {
  room: { id: string; title: string };
  /** The seat the requester holds in the fork, and its token for their cookie. */
  seat: { id: string; displayName: string; token: string } | null;
  /** Which of the fork's rows stand for which of the origin's: agents, notes, links, board entries. */
  ids: { agents: Map<string, string>; nodes: Map<string, string>; edges: Map<string, string>; board: Map<string, string> };
}

/** Requests still being served at the moment are open again in the fork: no run of the fork is on them yet. */
const REOPENED_REQUEST_STATUSES: readonly string[] = ["queued", "in_progress"];

/**
 * Starts a new room from the state of another right after its event `at`: the same template,
 * title and settings then; its agents with their model and system prompt then; its notes, links
 * and board then (entries still live at that moment, each keeping the time it had left). Nothing
 * that was under way is copied — runs, questions, dialogues, reviews, brainstorms, waiting
 * messages — nor the agents' knowledge from other rooms: the fork's agents are new identities,
 * whose vaults start with what they had learned in the origin up to that moment. The fork's first
 * event names the origin and the moment; the origin itself is not changed. One transaction.
 */
export async function forkRoom(
  db: Db,
  originId: string,
  input: ForkRoomInput,
  requester: ForkRequester,
  options: { actor?: Actor; now?: () => Date } = {},
): Promise<ForkResult> {
  const origin = await findRoom(db, originId);
  if (!origin) throw notFound("Room");
  if (origin.replayOf && requester.kind !== "admin") {
    throw forbidden("Only an admin may continue a replay: its agents would run on this server's models.");
  }
  if (input.at > origin.lastSeq) {
    throw badRequest(`at: the room has ${origin.lastSeq} events; choose one of them (1 to ${origin.lastSeq}).`);
  }
  const moment = await roomAt(db, originId, input.at);
  if (!moment || !moment.title) throw badRequest(`at: event ${input.at} of this room cannot be read, so nothing can continue from it.`);
  const now = (options.now ?? (() => new Date()))();

  const originAgents = await listAgentRows(db, originId);
  const prompts = await promptsAt(db, originId, moment, originAgents);
  const agentIds = new Map(moment.agents.map((agent) => [agent.id, randomUUID()]));
  const nodeIds = new Map([...moment.nodes.keys()].map((id) => [id, randomUUID()]));
  const edgeIds = new Map([...moment.edges.keys()].map((id) => [id, randomUUID()]));
  const liveEntries = [...moment.board.values()].filter((entry) => entry.expiresAt === null || entry.expiresAt > moment.at);
  const boardIds = new Map(liveEntries.map((entry) => [entry.id, randomUUID()]));
  const remap = { agents: agentIds, nodes: nodeIds, board: boardIds };

  const nodes = [...moment.nodes.values()].map((node) => copyNode(node, remap));
  const edges = [...moment.edges.values()]
    .filter((edge) => nodeIds.has(edge.sourceId) && nodeIds.has(edge.targetId))
    .map((edge) => copyEdge(edge, edgeIds.get(edge.id)!, remap));
  const board = liveEntries.map((entry) => copyEntry(entry, remap, Date.parse(moment.at), now));
  const title = input.title ?? `${moment.title} (from #${input.at})`.slice(0, LIMITS.roomTitle);
  const roomId = randomUUID();
  const seatId = randomUUID();
  const token = randomToken();
  const personas = moment.agents.map((agent) => {
    const row = originAgents.find((candidate) => candidate.id === agent.id);
    const template = findTemplate(moment.template)?.agents.find((persona) => persona.persona === agent.persona);
    return {
      persona: agent.persona,
      name: agent.name,
      role: agent.role,
      description: agent.description,
      color: agent.color,
      model: agent.model,
      systemPrompt: prompts.get(agent.id) ?? template?.systemPrompt ?? "",
      // A replay's agents name no endpoint of this server's: its file's word is not taken for one.
      modelOptions: origin.replayOf ? {} : (row?.modelOptions ?? {}),
    };
  });

  await createRoom(
    db,
    { title, template: moment.template },
    {
      id: roomId,
      agents: personas,
      settings: (moment.settings ?? origin.settings) as Record<string, never>,
      identityPrefix: `fork:${roomId}`,
      now: () => now,
      actor: options.actor,
      fork: {
        agentIds: moment.agents.map((agent) => agentIds.get(agent.id)!),
        origin: { roomId: originId, title: moment.title, seq: input.at, at: moment.at },
        copied: { nodes, edges, board },
        async fill(tx, forkAgents) {
          await insertCopies(tx, roomId, { nodes, edges, board });
          await copyVaults(tx, { originId, roomId, until: new Date(moment.at), originAgents, forkAgents, agentIds });
          if (requester.kind === "seat") await seatInFork(tx, roomId, seatId, requester.displayName, token);
        },
      },
    },
  );
  return {
    room: { id: roomId, title },
    seat: requester.kind === "seat" ? { id: seatId, displayName: requester.displayName, token } : null,
    ids: { agents: agentIds, nodes: nodeIds, edges: edgeIds, board: boardIds },
  };
}

interface Remap {
  agents: Map<string, string>;
  nodes: Map<string, string>;
  board: Map<string, string>;
}

/** An author id in the fork: an agent's is its counterpart's, a person's stays as it was (they wrote it in the origin). */
function authorIn(remap: Remap, authorKind: "human" | "agent", authorId: string): string {
  return authorKind === "agent" ? (remap.agents.get(authorId) ?? authorId) : authorId;
}

function copyNode(node: CanvasNodeDto, remap: Remap): CanvasNodeDto {
  return { ...node, id: remap.nodes.get(node.id)!, authorId: authorIn(remap, node.authorKind, node.authorId) };
}

function copyEdge(edge: CanvasEdgeDto, id: string, remap: Remap): CanvasEdgeDto {
  return {
    ...edge,
    id,
    sourceId: remap.nodes.get(edge.sourceId)!,
    targetId: remap.nodes.get(edge.targetId)!,
    authorId: authorIn(remap, edge.authorKind, edge.authorId),
  };
}

const NODE_LIST_KEYS = ["nodeIds", "refNodeIds"] as const;

/** A board entry in the fork: its ids and the notes it names are the fork's, and it has the time left it had at the moment. */
function copyEntry(entry: BoardEntryDto, remap: Remap, momentMs: number, now: Date): BoardEntryDto {
  const content: Record<string, unknown> = { ...entry.content };
  for (const key of NODE_LIST_KEYS) {
    const list = content[key];
    if (Array.isArray(list))
      content[key] = list.flatMap((id) => (typeof id === "string" && remap.nodes.has(id) ? [remap.nodes.get(id)!] : []));
  }
  if (typeof content.toEntryId === "string") content.toEntryId = remap.board.get(content.toEntryId) ?? content.toEntryId;
  return {
    ...entry,
    id: remap.board.get(entry.id)!,
    runId: null,
    agentId: entry.agentId ? (remap.agents.get(entry.agentId) ?? null) : null,
    content,
    requestStatus: entry.requestStatus && REOPENED_REQUEST_STATUSES.includes(entry.requestStatus) ? "open" : entry.requestStatus,
    answersEntryId: entry.answersEntryId ? (remap.board.get(entry.answersEntryId) ?? null) : null,
    expiresAt: entry.expiresAt === null ? null : new Date(now.getTime() + (Date.parse(entry.expiresAt) - momentMs)).toISOString(),
  };
}

async function insertCopies(tx: Tx, roomId: string, copied: PayloadOf<"room.created">["copied"] & {}): Promise<void> {
  if (copied.nodes.length) {
    await tx.insert(canvasNodes).values(
      copied.nodes.map((node) => ({
        ...node,
        roomId,
        createdAt: new Date(node.createdAt),
        updatedAt: new Date(node.updatedAt),
      })),
    );
  }
  if (copied.edges.length) {
    await tx.insert(canvasEdges).values(copied.edges.map((edge) => ({ ...edge, roomId, createdAt: new Date(edge.createdAt) })));
  }
  if (copied.board.length) {
    await tx.insert(boardEntries).values(
      copied.board.map((entry) => ({
        ...entry,
        roomId,
        expiresAt: entry.expiresAt === null ? null : new Date(entry.expiresAt),
        createdAt: new Date(entry.createdAt),
      })),
    );
  }
}

/**
 * Each agent's system prompt as it was at the moment: its prompt now, unless an admin changed it
 * after the moment, in which case the prompt that first change replaced (the dashboard's audit
 * trail keeps both sides of every change; the room's log says only that it changed).
 */
async function promptsAt(db: DbOrTx, roomId: string, moment: RoomAt, agents: Agent[]): Promise<Map<string, string>> {
  const prompts = new Map(agents.map((agent) => [agent.id, agent.systemPrompt]));
  const later = await db
    .select({ at: adminActions.at, details: adminActions.details })
    .from(adminActions)
    .where(and(eq(adminActions.roomId, roomId), eq(adminActions.action, "agent.updated"), gt(adminActions.at, new Date(moment.at))))
    .orderBy(desc(adminActions.at));
  // Newest first, so the earliest change after the moment is the one that stays.
  for (const { details } of later) {
    const change = details as { agentId?: unknown; systemPrompt?: { from?: unknown } };
    if (typeof change.agentId === "string" && typeof change.systemPrompt?.from === "string") {
      prompts.set(change.agentId, change.systemPrompt.from);
    }
  }
  return prompts;
}

/** What each agent had learned in the origin up to the moment goes into its counterpart's vault; nothing learned elsewhere. */
async function copyVaults(
  tx: Tx,
  input: { originId: string; roomId: string; until: Date; originAgents: Agent[]; forkAgents: Agent[]; agentIds: Map<string, string> },
): Promise<void> {
  for (const agent of input.originAgents) {
    const counterpart = input.forkAgents.find((candidate) => candidate.id === input.agentIds.get(agent.id));
    if (!counterpart) continue;
    const learned = and(
      eq(vaultInsights.identity, agent.identity),
      eq(vaultInsights.roomId, input.originId),
      lte(vaultInsights.createdAt, input.until),
    );
    const insights = await tx
      .select()
      .from(vaultInsights)
      .where(learned)
      .orderBy(desc(vaultInsights.createdAt))
      .limit(VAULT_LIMITS.insights);
    if (insights.length) {
      await tx
        .insert(vaultInsights)
        .values(insights.map((insight) => ({ ...insight, id: randomUUID(), identity: counterpart.identity, roomId: input.roomId })));
    }
    const tasks = await tx
      .select()
      .from(vaultTasks)
      .where(and(eq(vaultTasks.identity, agent.identity), eq(vaultTasks.roomId, input.originId), lte(vaultTasks.createdAt, input.until)))
      .orderBy(desc(vaultTasks.createdAt))
      .limit(VAULT_LIMITS.tasks);
    if (tasks.length) {
      await tx
        .insert(vaultTasks)
        .values(tasks.map((task) => ({ ...task, id: randomUUID(), identity: counterpart.identity, roomId: input.roomId })));
    }
  }
}

async function seatInFork(tx: Tx, roomId: string, seatId: string, displayName: string, token: string): Promise<void> {
  await writeRoomEventsInTransaction(tx, roomId, async (inner, emit) => {
    await inner.insert(seats).values({ id: seatId, roomId, displayName, tokenHash: hashToken(token) });
    emit({ type: "seat.taken", actor: { id: `human:${seatId}`, name: displayName }, payload: { seatId, displayName } });
  });
}
