import { sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { rowsOf } from "@/db/rows";
import { rateLimits } from "@/db/schema";
import { type Env, getEnv } from "@/lib/env";
import { tooManyRequests } from "@/lib/errors";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/**
 * A rate limit: at most `limit` requests per `windowMs` for one subject (a client address, a
 * seat), let through in a burst of up to `limit` and then at one per `windowMs / limit`.
 * `limit` 0 turns it off. `shared` rules are kept in the database, so every instance counts the
 * same requests; the others in this process's memory.
 */
export interface RateRule {
  bucket: string;
  limit: number;
  windowMs: number;
  shared: boolean;
  /** What is being limited, for the refusal: "rooms created". */
  what: string;
}

/** The rate limits, as the environment sets them (docs/behaviour/limits.md). */
export function rateRules(env: Env = getEnv()) {
  return {
    rooms: { bucket: "rooms", limit: env.PARLEY_ROOMS_PER_HOUR, windowMs: HOUR, shared: true, what: "rooms created" },
    imports: { bucket: "imports", limit: env.PARLEY_IMPORTS_PER_HOUR, windowMs: HOUR, shared: true, what: "teams imported" },
    seats: { bucket: "seats", limit: env.PARLEY_SEATS_PER_HOUR, windowMs: HOUR, shared: true, what: "seats taken" },
    runStarts: { bucket: "run-starts", limit: env.PARLEY_RUN_STARTS_PER_MINUTE, windowMs: MINUTE, shared: true, what: "agents started" },
    // Writes are the canvas's hot path: counted in memory, at no extra round trip (see the docs for what that trades).
    seatWrites: { bucket: "seat-writes", limit: env.PARLEY_SEAT_WRITES_PER_MINUTE, windowMs: MINUTE, shared: false, what: "changes" },
    adminSignIn: {
      bucket: "admin-sign-in",
      limit: env.PARLEY_ADMIN_SIGN_INS_PER_MINUTE,
      windowMs: MINUTE,
      shared: true,
      what: "failed admin sign-ins",
    },
  } satisfies Record<string, RateRule>;
}

export type RateRuleName = keyof ReturnType<typeof rateRules>;

export interface RateDecision {
  allowed: boolean;
  /** When refused: whole seconds until one more is let through. */
  retryAfterSeconds: number;
}

const ALLOWED: RateDecision = { allowed: true, retryAfterSeconds: 0 };

function refused(waitMs: number): RateDecision {
  return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
}

/**
 * The generic cell rate algorithm: each subject has the moment its allowance is whole again.
 * A request is let through while that moment, moved on by one request's share, is at most one
 * window ahead; otherwise it waits until it would be.
 */
function decide(allowanceAt: number | undefined, now: number, rule: RateRule): { decision: RateDecision; next: number | null } {
  const share = rule.windowMs / rule.limit;
  const next = Math.max(allowanceAt ?? now, now) + share;
  if (next - now <= rule.windowMs) return { decision: ALLOWED, next };
  return { decision: refused(next - rule.windowMs - now), next: null };
}

/** Subjects counted in this process, by rule and subject. */
const globalForLimits = globalThis as unknown as { __parleyRateLimits?: Map<string, number> };
globalForLimits.__parleyRateLimits ??= new Map();
const memory = globalForLimits.__parleyRateLimits;
let takenSincePrune = 0;

/** Forgets, now and then, subjects whose allowance is whole again: they read the same as ones never seen. */
function pruneSometimes(prune: () => void): void {
  takenSincePrune += 1;
  if (takenSincePrune < 500) return;
  takenSincePrune = 0;
  prune();
}

function takeFromMemory(rule: RateRule, subject: string, now: number): RateDecision {
  const key = `${rule.bucket}\n${subject}`;
  const { decision, next } = decide(memory.get(key), now, rule);
  if (next !== null) memory.set(key, next);
  pruneSometimes(() => {
    for (const [each, at] of memory) if (at < now) memory.delete(each);
  });
  return decision;
}

/**
 * One statement: moves the subject's allowance on if the request may pass (an upsert whose
 * update is conditional, so concurrent requests on any instance are counted one after
 * another), and reads how long a refused one must wait from the row as it was.
 */
async function takeFromDatabase(db: DbOrTx, rule: RateRule, subject: string, options: TakeOptions): Promise<RateDecision> {
  const share = rule.windowMs / rule.limit;
  const ms = (value: number) => sql`(${value} * interval '1 millisecond')`;
  const [row] = rowsOf<{ taken: number | string; wait_ms: number | string | null }>(
    await db.execute(sql`
      with attempt as (
        insert into ${rateLimits} (bucket, subject, allowance_at) values (${rule.bucket}, ${subject}, now() + ${ms(share)})
        on conflict (bucket, subject) do update
          set allowance_at = greatest(${rateLimits.allowanceAt}, now()) + ${ms(share)}
          where greatest(${rateLimits.allowanceAt}, now()) + ${ms(share)} <= now() + ${ms(rule.windowMs)}
        returning 1
      )
      select
        (select count(*) from attempt) as taken,
        extract(epoch from (
          (select allowance_at from ${rateLimits} where bucket = ${rule.bucket} and subject = ${subject}) + ${ms(share)} - ${ms(rule.windowMs)} - now()
        )) * 1000 as wait_ms`),
  );
  if (!options.inTransaction) {
    pruneSometimes(() => {
      void db.execute(sql`delete from ${rateLimits} where allowance_at < now() - interval '1 minute'`).catch(() => {});
    });
  }
  if (Number(row?.taken ?? 0) > 0) return ALLOWED;
  return refused(Number(row?.wait_ms ?? share));
}

export interface TakeOptions {
  /**
   * `db` is a transaction that is still to make its change: the count is undone with it when it
   * rolls back, and the occasional clean-up of old rows is left to another request, since it
   * would run inside the transaction and could make it wait for other writers' rows.
   */
  inTransaction?: boolean;
}

/** Counts one request of `subject` against `rule`; says whether it may pass. A rule with no limit lets everything through. */
export async function takeRate(
  db: DbOrTx,
  rule: RateRule,
  subject: string,
  now: number = Date.now(),
  options: TakeOptions = {},
): Promise<RateDecision> {
  if (rule.limit <= 0) return ALLOWED;
  return rule.shared ? takeFromDatabase(db, rule, subject, options) : takeFromMemory(rule, subject, now);
}

/**
 * Whether `subject` could make one more request under `rule` now, without counting one: for
 * limits that count only failures (admin sign-ins), checked before the attempt.
 */
export async function rateWait(db: DbOrTx, rule: RateRule, subject: string): Promise<RateDecision> {
  if (rule.limit <= 0) return ALLOWED;
  const share = rule.windowMs / rule.limit;
  const [row] = rowsOf<{ wait_ms: number | string | null }>(
    await db.execute(sql`
      select extract(epoch from (allowance_at + ${share} * interval '1 millisecond' - ${rule.windowMs} * interval '1 millisecond' - now())) * 1000 as wait_ms
      from ${rateLimits} where bucket = ${rule.bucket} and subject = ${subject}`),
  );
  const wait = row ? Number(row.wait_ms) : 0;
  return wait > 0 ? refused(wait) : ALLOWED;
}

/** The refusal of a request over `rule`: a 429 with `Retry-After`. */
export function rateLimited(rule: RateRule, decision: RateDecision) {
  const per = rule.windowMs >= HOUR ? "an hour" : "a minute";
  return tooManyRequests(
    `Too many ${rule.what}: at most ${rule.limit} ${per}${rule.shared ? " from one address" : " from one seat"}; try again in ${decision.retryAfterSeconds} s.`,
    decision.retryAfterSeconds,
  );
}

/** Counts one request of `subject` against the named rule, refusing it with a 429 beyond the limit. */
export async function enforceRate(db: DbOrTx, name: RateRuleName, subject: string, options: TakeOptions = {}): Promise<void> {
  const rule = rateRules()[name];
  const decision = await takeRate(db, rule, subject, Date.now(), options);
  if (!decision.allowed) throw rateLimited(rule, decision);
}
