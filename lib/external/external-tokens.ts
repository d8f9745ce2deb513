import { randomUUID } from "node:crypto";
import { and, asc, desc, eq, max } from "drizzle-orm";
import { z } from "zod";
import type { Db, DbOrTx } from "@/db";
import { type Agent, type ExternalToken, agents, externalTokens } from "@/db/schema";
import { hashToken, randomToken } from "@/lib/auth/tokens";
import { findTeammate, nameKey } from "@/lib/agents/find-teammate";
import { AppError, conflict, notFound } from "@/lib/errors";
import { type Actor, eventPayload, writeRoomEvents } from "@/lib/events/write-room-events";
import { agentToDto } from "@/lib/rooms/dto";
import { EXTERNAL_MCP_MODEL, isExternalModel } from "./external-model";

/** How long an invitation lasts unless the inviter says otherwise, and the longest it may. */
const DEFAULT_TOKEN_HOURS = 24;
const MAX_TOKEN_HOURS = 24 * 30;

/** Every token starts with this, so a leaked one is recognisable (and secret scanners can find it). */
const TOKEN_PREFIX = "parley_mcp_";

export const inviteExternalAgentSchema = z.strictObject({
  name: z
    .string()
    .trim()
    .min(2, "Name the agent (at least 2 characters)")
    .max(40, "Agent names are limited to 40 characters")
    .regex(/^[\p{L}\p{N}][\p{L}\p{N} ._-]*$/u, "Agent names are letters, digits, spaces, dots, dashes and underscores"),
  expiresInHours: z.number().int().min(1).max(MAX_TOKEN_HOURS).default(DEFAULT_TOKEN_HOURS),
});
export type InviteExternalAgentInput = z.input<typeof inviteExternalAgentSchema>;

/** A token as the room and the dashboard list it: never the secret itself. */
export interface ExternalTokenDto {
  id: string;
  roomId: string;
  agentId: string;
  agentName: string;
  protocol: string;
  createdBy: string;
  createdAt: string;
  expiresAt: string;
  revokedAt: string | null;
  lastUsedAt: string | null;
  /** `active`, or why the token no longer works. */
  state: "active" | "revoked" | "expired";
}

function externalTokenToDto(token: ExternalToken, agentName: string, now: Date = new Date()): ExternalTokenDto {
  return {
    id: token.id,
    roomId: token.roomId,
    agentId: token.agentId,
    agentName,
    protocol: token.protocol,
    createdBy: token.createdBy,
    createdAt: token.createdAt.toISOString(),
    expiresAt: token.expiresAt.toISOString(),
    revokedAt: token.revokedAt?.toISOString() ?? null,
    lastUsedAt: token.lastUsedAt?.toISOString() ?? null,
    state: token.revokedAt ? "revoked" : token.expiresAt <= now ? "expired" : "active",
  };
}

const COLORS = ["#0f766e", "#7c3aed", "#b45309", "#be123c", "#1d4ed8", "#4d7c0f"];

/**
 * Invites an agent from another system into a room: adds it to the roster as `name` (an agent
 * whose model is `external:mcp`, which Parley never runs itself) and makes the token its own
 * client acts with, stored only hashed. One room write: `agent.joined`. A name already taken by
 * another agent of the room is a 409, except by an outside agent invited before, which gets a
 * new token (its earlier ones keep working until revoked or expired).
 */
export async function inviteExternalAgent(
  db: Db,
  roomId: string,
  inviter: Actor,
  input: InviteExternalAgentInput,
  options: { idempotencyKey?: string; now?: () => Date } = {},
): Promise<{ token: string | null; tokenInfo: ExternalTokenDto }> {
  const { name, expiresInHours } = inviteExternalAgentSchema.parse(input);
  const secret = `${TOKEN_PREFIX}${randomToken()}`;
  const { events, duplicate } = await writeRoomEvents(
    db,
    roomId,
    async (tx, emit, at) => {
      const team = await tx.select().from(agents).where(eq(agents.roomId, roomId)).orderBy(asc(agents.position));
      let agent: Agent | null | undefined = findTeammate(team, name);
      if (agent && !isExternalModel(agent.model)) {
        throw conflict(`${agent.name} is already one of this room's agents; give the outside agent another name.`);
      }
      if (!agent) {
        const [last] = await tx
          .select({ value: max(agents.position) })
          .from(agents)
          .where(eq(agents.roomId, roomId));
        const persona = `external-${nameKey(name).replace(/[^\p{L}\p{N}.]/gu, "")}`;
        [agent] = await tx
          .insert(agents)
          .values({
            id: randomUUID(),
            roomId,
            persona,
            name,
            role: "Outside agent",
            description: "An agent from another system, taking part through Parley's MCP endpoint.",
            color: COLORS[team.length % COLORS.length]!,
            model: EXTERNAL_MCP_MODEL,
            identity: `external/${persona}`,
            position: (last?.value ?? -1) + 1,
          })
          .returning();
      }
      const [token] = await tx
        .insert(externalTokens)
        .values({
          id: randomUUID(),
          roomId,
          agentId: agent!.id,
          protocol: "mcp",
          tokenHash: hashToken(secret),
          createdBy: inviter.id,
          createdAt: at,
          expiresAt: new Date(at.getTime() + expiresInHours * 3_600_000),
        })
        .returning();
      emit({
        type: "agent.joined",
        actor: inviter,
        targetAgent: agent!.id,
        payload: { agent: agentToDto(agent!), protocol: "mcp", tokenId: token!.id, expiresAt: token!.expiresAt.toISOString() },
      });
    },
    {
      now: options.now,
      idempotencyKey: options.idempotencyKey,
      change: { type: "agent.joined", request: { by: inviter.id, name, expiresInHours } },
    },
  );
  const joined = eventPayload(events, "agent.joined");
  const [token] = await db.select().from(externalTokens).where(eq(externalTokens.id, joined.tokenId));
  if (!token) throw notFound("Token");
  // A retried invitation cannot give the secret back (only its hash is kept): the inviter revokes it and invites again.
  return { token: duplicate ? null : secret, tokenInfo: externalTokenToDto(token, joined.agent.name) };
}

/** The tokens of a room's outside agents, newest first; every room's when `roomId` is null (the dashboard). */
export async function listExternalTokens(db: DbOrTx, roomId: string | null, now: Date = new Date()): Promise<ExternalTokenDto[]> {
  const rows = await db
    .select({ token: externalTokens, agentName: agents.name })
    .from(externalTokens)
    .innerJoin(agents, eq(agents.id, externalTokens.agentId))
    .where(roomId ? eq(externalTokens.roomId, roomId) : undefined)
    .orderBy(desc(externalTokens.createdAt))
    .limit(500);
  return rows.map((row) => externalTokenToDto(row.token, row.agentName, now));
}

/**
 * Revokes a token: from then on its client is refused. One room write (`agent.token_revoked`);
 * revoking a revoked token changes nothing and says so.
 */
export async function revokeExternalToken(
  db: Db,
  roomId: string,
  tokenId: string,
  actor: Actor,
): Promise<{ token: ExternalTokenDto; alreadyRevoked: boolean }> {
  const { result } = await writeRoomEvents(db, roomId, async (tx, emit, at) => {
    const [row] = await tx
      .select({ token: externalTokens, agentName: agents.name })
      .from(externalTokens)
      .innerJoin(agents, eq(agents.id, externalTokens.agentId))
      .where(and(eq(externalTokens.id, tokenId), eq(externalTokens.roomId, roomId)));
    if (!row) throw notFound("Outside agent token");
    if (row.token.revokedAt) return { token: externalTokenToDto(row.token, row.agentName, at), alreadyRevoked: true };
    const [revoked] = await tx.update(externalTokens).set({ revokedAt: at }).where(eq(externalTokens.id, tokenId)).returning();
    forgetToken(tokenId);
    emit({
      type: "agent.token_revoked",
      actor,
      targetAgent: row.token.agentId,
      payload: { agentId: row.token.agentId, tokenId },
    });
    return { token: externalTokenToDto(revoked!, row.agentName, at), alreadyRevoked: false };
  });
  // Also after the commit: a call verified while the revocation was being written is not remembered past it.
  forgetToken(tokenId);
  return result!;
}

/** Who an outside agent's token acts as: the token, its room and its agent. */
export interface ExternalCaller {
  token: ExternalToken;
  agent: Agent;
}

/** Refusals of an MCP client's token; each says what to do. */
export const externalTokenErrors = {
  missing: () =>
    new AppError(401, "unauthorized", "Send the token Parley gave you when the agent was invited: Authorization: Bearer parley_mcp_…"),
  unknown: () => new AppError(401, "invalid_token", "This token is not known here: ask someone in the room to invite the agent again."),
  revoked: () => new AppError(401, "token_revoked", "This token was revoked: ask someone in the room to invite the agent again."),
  expired: (at: Date) =>
    new AppError(401, "token_expired", `This token expired at ${at.toISOString()}: ask someone in the room to invite the agent again.`),
};

/**
 * Tokens verified lately, by hash: an MCP client makes many calls a minute, and each would
 * otherwise cost a query. Revoking a token forgets it here at once; another instance may still
 * accept it for `VERIFIED_TTL_MS`.
 */
const VERIFIED_TTL_MS = 5000;
const globalForTokens = globalThis as unknown as { __parleyVerifiedTokens?: Map<string, { caller: ExternalCaller; until: number }> };
function verified(): Map<string, { caller: ExternalCaller; until: number }> {
  globalForTokens.__parleyVerifiedTokens ??= new Map();
  return globalForTokens.__parleyVerifiedTokens;
}

function forgetToken(tokenId: string): void {
  for (const [hash, entry] of verified()) if (entry.caller.token.id === tokenId) verified().delete(hash);
}

/**
 * The caller a bearer token names, or a 401 saying why it is refused (missing, unknown,
 * revoked, expired). Records when the token was last used, at most once a minute.
 */
export async function verifyExternalToken(db: DbOrTx, bearer: string | undefined, now: Date = new Date()): Promise<ExternalCaller> {
  if (!bearer) throw externalTokenErrors.missing();
  const hash = hashToken(bearer);
  const cached = verified().get(hash);
  if (cached && cached.until > now.getTime()) return cached.caller;
  verified().delete(hash);
  const [row] = await db
    .select({ token: externalTokens, agent: agents })
    .from(externalTokens)
    .innerJoin(agents, eq(agents.id, externalTokens.agentId))
    .where(eq(externalTokens.tokenHash, hash));
  if (!row) throw externalTokenErrors.unknown();
  if (row.token.revokedAt) throw externalTokenErrors.revoked();
  if (row.token.expiresAt <= now) throw externalTokenErrors.expired(row.token.expiresAt);
  if (!row.token.lastUsedAt || now.getTime() - row.token.lastUsedAt.getTime() > 60_000) {
    await db.update(externalTokens).set({ lastUsedAt: now }).where(eq(externalTokens.id, row.token.id));
  }
  if (verified().size > 10_000) verified().clear();
  verified().set(hash, { caller: row, until: Math.min(now.getTime() + VERIFIED_TTL_MS, row.token.expiresAt.getTime()) });
  return row;
}
