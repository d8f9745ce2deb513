import { and, desc, eq, gt, lte, ne, or } from "drizzle-orm";
import type { Db } from "@/db";
import { adminSessions } from "@/db/schema";
import { getEnv } from "@/lib/env";
import { adminActionInsert } from "@/lib/admin/admin-actions";
import { adminTokenDigest } from "./admin-token";
import { hashToken, randomToken } from "./tokens";

/** How often a session's "last seen" is written again at most: reading the dashboard is not a write each time. */
const LAST_SEEN_EVERY_MS = 60_000;

/** How long a sign-in lasts (`PARLEY_ADMIN_SESSION_HOURS`, 12 by default). */
function adminSessionLifetimeMs(): number {
  return Math.round(getEnv().PARLEY_ADMIN_SESSION_HOURS * 3_600_000);
}

/**
 * Signs an admin in: a new session with a random id, which only the cookie holds (the row keeps its
 * digest), lasting `PARLEY_ADMIN_SESSION_HOURS`. Sessions that are over (expired, or made with
 * another admin token) are cleared on the way.
 */
export async function startAdminSession(
  db: Db,
  who: { clientAddress: string; userAgent: string | null },
  now: Date = new Date(),
): Promise<{ id: string; expiresAt: Date }> {
  const id = randomToken(32);
  const idDigest = hashToken(id);
  const tokenDigest = await adminTokenDigest(db);
  const expiresAt = new Date(now.getTime() + adminSessionLifetimeMs());
  await db.delete(adminSessions).where(or(lte(adminSessions.expiresAt, now), ne(adminSessions.tokenDigest, tokenDigest)));
  await db.insert(adminSessions).values({
    idDigest,
    label: idDigest.slice(0, 8),
    createdAt: now,
    expiresAt,
    lastSeenAt: now,
    tokenDigest,
    clientAddress: who.clientAddress,
    userAgent: (who.userAgent ?? "").slice(0, 200),
  });
  return { id, expiresAt };
}

/**
 * Whether a session id names a live session: one that signing in made, that has not expired,
 * been ended, or been made with another admin token than today's.
 */
export async function isLiveAdminSession(db: Db, id: string, now: Date = new Date()): Promise<boolean> {
  if (!id || id.length > 256) return false;
  const [session] = await db
    .select()
    .from(adminSessions)
    .where(eq(adminSessions.idDigest, hashToken(id)));
  if (!session || session.expiresAt <= now || session.tokenDigest !== (await adminTokenDigest(db))) return false;
  if (now.getTime() - session.lastSeenAt.getTime() >= LAST_SEEN_EVERY_MS) {
    await db.update(adminSessions).set({ lastSeenAt: now }).where(eq(adminSessions.idDigest, session.idDigest));
  }
  return true;
}

/** Signs a session out: its row is deleted, so its cookie, kept or copied, opens nothing any more. */
export async function endAdminSession(db: Db, id: string): Promise<void> {
  await db.delete(adminSessions).where(eq(adminSessions.idDigest, hashToken(id)));
}

/** Ends every admin session, the caller's too, and records it in the audit trail; how many were live. */
export async function endAllAdminSessions(db: Db, now: Date = new Date()): Promise<number> {
  return db.transaction(async (tx) => {
    const ended = await tx.delete(adminSessions).returning({ expiresAt: adminSessions.expiresAt });
    const live = ended.filter((session) => session.expiresAt > now).length;
    await adminActionInsert(
      tx,
      { action: "admin.sessions_ended", summary: `Ended every admin session (${live} signed in)`, details: { sessions: live } },
      now,
    );
    return live;
  });
}

export interface AdminSessionDto {
  label: string;
  createdAt: string;
  lastSeenAt: string;
  expiresAt: string;
  clientAddress: string;
  userAgent: string;
  /** The session the list was asked for with. */
  current: boolean;
}

/** The live sessions, newest first, marking the one `currentId` names. */
export async function listAdminSessions(db: Db, currentId: string | undefined, now: Date = new Date()): Promise<AdminSessionDto[]> {
  const rows = await db
    .select()
    .from(adminSessions)
    .where(and(gt(adminSessions.expiresAt, now), eq(adminSessions.tokenDigest, await adminTokenDigest(db))))
    .orderBy(desc(adminSessions.createdAt));
  const current = currentId ? hashToken(currentId) : null;
  return rows.map((row) => ({
    label: row.label,
    createdAt: row.createdAt.toISOString(),
    lastSeenAt: row.lastSeenAt.toISOString(),
    expiresAt: row.expiresAt.toISOString(),
    clientAddress: row.clientAddress,
    userAgent: row.userAgent,
    current: row.idDigest === current,
  }));
}
