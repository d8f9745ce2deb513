import { randomUUID } from "node:crypto";
import { and, count, desc, eq, inArray, notInArray, or, sql } from "drizzle-orm";
import type { Db, DbOrTx } from "@/db";
import { rowsOf } from "@/db/rows";
import { agents, vaultExpertise, vaultInsights, vaultTasks } from "@/db/schema";
import { badRequest } from "@/lib/errors";
import { LIMITS, type VaultDto } from "@/lib/protocol";

/** What a vault keeps: the newest insights and tasks, and at most this many areas. */
export const VAULT_LIMITS = { insights: 200, tasks: 100, areas: 20, maxLevel: 100, askedText: 200 } as const;

/** An area of expertise as the vault keys it: lowercase words joined by dashes. */
function areaSlug(area: string): string {
  return area
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40);
}

/**
 * Serialises changes to one identity's vault, whichever room they come from: held to the end
 * of the transaction, so trimming and the area limit see every change committed before.
 */
export async function lockVault(tx: DbOrTx, identity: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`vault:${identity}`}, 0))`);
}

/** `lockVault` for the identity of the agent `agentId`, read in the same statement; null (and nothing locked) without the agent. */
export async function lockVaultOfAgent(tx: DbOrTx, agentId: string): Promise<string | null> {
  const [row] = rowsOf<{ identity: string }>(
    await tx.execute(
      sql`select ${agents.identity} as identity, pg_advisory_xact_lock(hashtextextended('vault:' || ${agents.identity}, 0)) from ${agents} where ${agents.id} = ${agentId}`,
    ),
  );
  return row?.identity ?? null;
}

/**
 * Adds an insight (≤ 300 characters) and drops the oldest beyond the vault's 200. Call under `lockVault`.
 * A `general` insight is a lesson the agent takes to its other rooms; any other stays in the room it came from.
 */
export async function addInsight(tx: DbOrTx, identity: string, roomId: string, text: string, at: Date, general = false): Promise<string> {
  const insight = text.replace(/\s+/g, " ").trim();
  if (!insight) throw badRequest("insight: say what you learned, in 1 to 300 characters.");
  if (insight.length > LIMITS.insightText) {
    throw badRequest(`insight: at most ${LIMITS.insightText} characters; this one has ${insight.length}.`);
  }
  await tx.insert(vaultInsights).values({ id: randomUUID(), identity, text: insight, roomId, general, createdAt: at });
  const kept = tx
    .select({ id: vaultInsights.id })
    .from(vaultInsights)
    .where(eq(vaultInsights.identity, identity))
    .orderBy(desc(vaultInsights.createdAt), desc(vaultInsights.id))
    .limit(VAULT_LIMITS.insights);
  await tx.delete(vaultInsights).where(and(eq(vaultInsights.identity, identity), notInArray(vaultInsights.id, kept)));
  return insight;
}

/**
 * An area's level once it gains `amount`: never above 100 nor below 0, so that a level stored
 * out of that range (by hand, or by an older version) comes back into it.
 */
export function raisedLevel(level: number, amount: number): number {
  return Math.min(VAULT_LIMITS.maxLevel, Math.max(0, level + amount));
}

/**
 * Raises the expertise in an area by `amount` (1–10), clamped to 100. A vault knows at most
 * 20 areas: a new one beyond them is refused. Call under `lockVault`. Returns the new level.
 */
export async function addExpertise(
  tx: DbOrTx,
  identity: string,
  area: string,
  amount: number,
  at: Date,
): Promise<{ area: string; level: number }> {
  const slug = areaSlug(area);
  if (!slug) throw badRequest('area: name it in letters or digits, e.g. "song-structure".');
  if (!Number.isInteger(amount) || amount < 1 || amount > 10) throw badRequest("amount: a whole number from 1 to 10.");
  const [known] = await tx
    .select({ level: vaultExpertise.level })
    .from(vaultExpertise)
    .where(and(eq(vaultExpertise.identity, identity), eq(vaultExpertise.area, slug)));
  if (!known) {
    const [areas] = await tx.select({ value: count() }).from(vaultExpertise).where(eq(vaultExpertise.identity, identity));
    if (Number(areas?.value ?? 0) >= VAULT_LIMITS.areas) {
      throw badRequest(`You already track ${VAULT_LIMITS.areas} areas, the most a vault keeps; add to one of them instead.`);
    }
  }
  const level = raisedLevel(known?.level ?? 0, amount);
  await tx
    .insert(vaultExpertise)
    .values({ identity, area: slug, level, updatedAt: at })
    .onConflictDoUpdate({ target: [vaultExpertise.identity, vaultExpertise.area], set: { level, updatedAt: at } });
  return { area: slug, level };
}

/** Records what a run was asked and how it went; keeps the newest 100 tasks. Call under `lockVault`. */
export async function recordTask(
  tx: DbOrTx,
  task: { identity: string; roomId: string; runId: string; asked: string; outcome: string; steps: number; costUsd: number; at: Date },
): Promise<void> {
  const asked = task.asked.replace(/\s+/g, " ").trim();
  await tx.insert(vaultTasks).values({
    id: randomUUID(),
    identity: task.identity,
    roomId: task.roomId,
    runId: task.runId,
    asked: asked.length > VAULT_LIMITS.askedText ? `${asked.slice(0, VAULT_LIMITS.askedText - 1)}…` : asked,
    outcome: task.outcome.slice(0, 300),
    steps: task.steps,
    costUsd: task.costUsd,
    createdAt: task.at,
  });
  const kept = tx
    .select({ id: vaultTasks.id })
    .from(vaultTasks)
    .where(eq(vaultTasks.identity, task.identity))
    .orderBy(desc(vaultTasks.createdAt), desc(vaultTasks.id))
    .limit(VAULT_LIMITS.tasks);
  await tx.delete(vaultTasks).where(and(eq(vaultTasks.identity, task.identity), notInArray(vaultTasks.id, kept)));
}

/**
 * A vault as its owner's card shows it: areas by level, insights and tasks newest first. Seen from
 * a room (`roomId`), it holds only what may cross into that room: the areas, the tasks done in
 * that room, and the insights written there or written as general lessons — never another room's
 * task, or an insight that stayed in its own room.
 */
export async function readVault(
  db: Db,
  identity: string,
  limits: { insights?: number; tasks?: number; areas?: number } = {},
  roomId?: string,
): Promise<VaultDto> {
  const insightsSeen = roomId
    ? and(eq(vaultInsights.identity, identity), or(eq(vaultInsights.general, true), eq(vaultInsights.roomId, roomId)))
    : eq(vaultInsights.identity, identity);
  const tasksSeen = roomId ? and(eq(vaultTasks.identity, identity), eq(vaultTasks.roomId, roomId)) : eq(vaultTasks.identity, identity);
  const [areas, insights, tasks] = await Promise.all([
    db
      .select()
      .from(vaultExpertise)
      .where(eq(vaultExpertise.identity, identity))
      .orderBy(desc(vaultExpertise.level), vaultExpertise.area)
      .limit(limits.areas ?? VAULT_LIMITS.areas),
    db
      .select()
      .from(vaultInsights)
      .where(insightsSeen)
      .orderBy(desc(vaultInsights.createdAt), desc(vaultInsights.id))
      .limit(limits.insights ?? VAULT_LIMITS.insights),
    db
      .select()
      .from(vaultTasks)
      .where(tasksSeen)
      .orderBy(desc(vaultTasks.createdAt), desc(vaultTasks.id))
      .limit(limits.tasks ?? VAULT_LIMITS.tasks),
  ]);
  return {
    identity,
    areas: areas.map(({ area, level }) => ({ area, level })),
    insights: insights.map(({ id, text, createdAt }) => ({ id, text, createdAt: createdAt.toISOString() })),
    tasks: tasks.map(({ id, asked, outcome, steps, costUsd, createdAt }) => ({
      id,
      asked,
      outcome,
      steps,
      costUsd,
      createdAt: createdAt.toISOString(),
    })),
  };
}

/** The top areas of several identities at once, for the "Your team" section. */
export async function topAreas(db: Db, identities: string[], perIdentity: number): Promise<Map<string, string[]>> {
  const result = new Map<string, string[]>();
  if (identities.length === 0) return result;
  const rows = await db
    .select({ identity: vaultExpertise.identity, area: vaultExpertise.area })
    .from(vaultExpertise)
    .where(inArray(vaultExpertise.identity, identities))
    .orderBy(desc(vaultExpertise.level), vaultExpertise.area);
  for (const row of rows) {
    const areas = result.get(row.identity) ?? [];
    if (areas.length < perIdentity) areas.push(row.area);
    result.set(row.identity, areas);
  }
  return result;
}

/** Empties an identity's vault. Call under `lockVault`. */
export async function clearVaultRows(tx: DbOrTx, identity: string): Promise<void> {
  await tx.delete(vaultInsights).where(eq(vaultInsights.identity, identity));
  await tx.delete(vaultExpertise).where(eq(vaultExpertise.identity, identity));
  await tx.delete(vaultTasks).where(eq(vaultTasks.identity, identity));
}
