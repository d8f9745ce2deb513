import { createHash, randomUUID } from "node:crypto";
import { type SQL, type SQLWrapper, and, eq, sql } from "drizzle-orm";
import type { Db, Tx } from "@/db";
import { finishTransaction } from "@/db/pipelined-transaction";
import { events, rooms } from "@/db/schema";
import { conflict, notFound } from "@/lib/errors";
import { createCorrelationId } from "@/lib/protocol/correlation-id";
import type { ErrorDetails, MessageStatus, PayloadOf, StoredEvent, StoredEventType } from "@/lib/protocol";
import { storedEventSchemas } from "@/lib/protocol";
import { EVENTS_CHANNEL, encodeStoredNotification } from "@/lib/realtime/notification";
import { eventFromRow } from "./event-row";

/** Who is writing: becomes the envelope's `agent` and `agent_name`. */
export interface Actor {
  id: string;
  name: string;
}

export const SYSTEM_ACTOR: Actor = { id: "system", name: "Parley" };
export const ADMIN_ACTOR: Actor = { id: "admin", name: "Admin" };

export interface EventDraft<T extends StoredEventType = StoredEventType> {
  type: T;
  payload: PayloadOf<T>;
  actor: Actor;
  correlationId?: string;
  targetAgent?: string | null;
  status?: MessageStatus;
  nextSteps?: string[];
  errorDetails?: ErrorDetails | null;
}

export type Emit = <T extends StoredEventType>(draft: EventDraft<T>) => void;

/**
 * Hands over a change (an insert, update or delete) to be made by the statement that stores
 * the events, saving it a round trip of its own. For changes nothing later in the work
 * reads back; their failure fails the whole write.
 */
export type Defer = (change: SQLWrapper) => void;

/**
 * The body of a write: change domain rows through `tx` (or `defer` them), describe each
 * change with `emit`. `at` is the write's timestamp, taken once the room is locked so that
 * timestamps follow sequence order; use it for the rows' own times.
 */
export type WriteWork<R> = (tx: Tx, emit: Emit, at: Date, defer: Defer) => Promise<R>;

/**
 * What a write changes: its first event's type and, for a change to something that exists,
 * that thing's id. A key reused for a different change is refused rather than replayed.
 */
export interface ChangeIdentity {
  type: StoredEventType;
  subject?: string;
  /**
   * Who asked for what (the request's author and input). Stored as a hash with the key: a
   * retry must ask for the same thing, or it is refused rather than answered with another
   * request's result.
   */
  request?: unknown;
}

/** JSON with every object's keys in order, so equal values always read the same. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** The hash stored beside an idempotency key: what the keyed write asked for. */
export function requestFingerprint(change: ChangeIdentity): string | null {
  if (change.request === undefined) return null;
  return createHash("sha256").update(`${change.type}\n${change.subject ?? ""}\n${canonicalJson(change.request)}`).digest("base64url");
}

/** What the caller of a write passes along: a retry key and, in tests, a clock. */
export interface WriteRequestOptions {
  /** A retried write with the same key (per room) does nothing and returns the original event. */
  idempotencyKey?: string;
  now?: () => Date;
}

/**
 * A write that may carry an idempotency key must say what change it makes (`change`), checked
 * against the event stored under the key: a key reused for a different change is a 409 rather
 * than a silent replay. The types enforce it: with a key, `change` is required.
 */
export type WriteOptions = Omit<WriteRequestOptions, "idempotencyKey"> &
  ({ idempotencyKey?: undefined; change?: ChangeIdentity } | { idempotencyKey: string | undefined; change: ChangeIdentity });

/**
 * The id of what an event changed (a node, an edge, the agent a run is for, the question a
 * person answered or skipped), when it names one.
 */
function subjectOf(event: StoredEvent): string | undefined {
  const payload = event.payload as {
    nodeId?: unknown;
    edgeId?: unknown;
    run?: { agentId?: unknown };
    broadcastId?: unknown;
    response?: { broadcastId?: unknown };
  };
  const subject = payload.nodeId ?? payload.edgeId ?? payload.run?.agentId ?? payload.broadcastId ?? payload.response?.broadcastId;
  return typeof subject === "string" ? subject : undefined;
}

/** Whether `event`, stored under an idempotency key, records the change now being retried. */
export function isSameChange(event: StoredEvent, change: ChangeIdentity): boolean {
  return event.type === change.type && (change.subject === undefined || subjectOf(event) === change.subject);
}

export interface WriteResult<R> {
  events: StoredEvent[];
  /** What `work` returned; undefined when the write was a duplicate. */
  result: R | undefined;
  duplicate: boolean;
}

/**
 * Runs one write in a room as a single transaction: locks the room, runs `work` (which
 * changes domain rows and emits the events describing them), then gives the events the
 * room's next sequence numbers, stores them and notifies every app instance on commit.
 *
 * The room row lock serialises writers per room, so sequence numbers are gapless and in
 * commit order — a client resuming after seq N can never miss an event.
 */
export async function writeRoomEvents<R>(
  db: Db,
  roomId: string,
  work: WriteWork<R>,
  options: WriteOptions = {},
): Promise<WriteResult<R>> {
  return db.transaction((tx) => write(tx, roomId, work, options, true));
}

/** The same as `writeRoomEvents`, inside a transaction the caller already holds. */
export async function writeRoomEventsInTransaction<R>(
  tx: Tx,
  roomId: string,
  work: WriteWork<R>,
  options: WriteOptions = {},
): Promise<WriteResult<R>> {
  return write(tx, roomId, work, options, false);
}

/** `ownsTransaction`: the write's last statement may also commit (see `finishTransaction`). */
async function write<R>(
  tx: Tx,
  roomId: string,
  work: WriteWork<R>,
  options: WriteOptions,
  ownsTransaction: boolean,
): Promise<WriteResult<R>> {
  const now = options.now ?? (() => new Date());
  // The key lookup is sent right behind the lock, in the same round trip: the server runs
  // it once the lock is held, with a fresh snapshot, so a retry racing its original waits
  // for it and then finds its event.
  const key = options.idempotencyKey;
  const [[room], [existing]] = await Promise.all([
    tx
      .select({ lastSeq: rooms.lastSeq, lastActivityAt: rooms.lastActivityAt })
      .from(rooms)
      .where(eq(rooms.id, roomId))
      .for("update"),
    key
      ? tx.select().from(events).where(and(eq(events.roomId, roomId), eq(events.idempotencyKey, key)))
      : Promise.resolve([]),
  ]);
  if (!room) throw notFound("Room");

  const fingerprint = key && options.change ? requestFingerprint(options.change) : null;
  if (existing) {
    const original = eventFromRow(existing);
    if (options.change && !isSameChange(original, options.change)) {
      throw conflict(
        `Idempotency-Key "${key}" was already used for a different change (${original.type}); send a new key for a new change.`,
      );
    }
    if (fingerprint && existing.idempotencyFingerprint && existing.idempotencyFingerprint !== fingerprint) {
      throw conflict(`Idempotency-Key "${key}" was already used for a different request; send a new key for a new change.`);
    }
    return { events: [original], result: undefined, duplicate: true };
  }

  const clock = now();
  const timestamp = clock < room.lastActivityAt ? room.lastActivityAt : clock;
  const drafts: EventDraft[] = [];
  const deferred: SQL[] = [];
  const result = await work(
    tx,
    (draft) => {
      drafts.push(draft as EventDraft);
    },
    timestamp,
    (change) => {
      deferred.push(change.getSQL());
    },
  );
  const changes = sql.join(
    deferred.map((change, index) => sql`${sql.raw(`change_${index}`)} as (${change}), `),
    sql``,
  );
  const last = (statement: SQL) => (ownsTransaction ? finishTransaction(tx, statement) : tx.execute(statement));
  if (drafts.length === 0) {
    if (deferred.length > 0) await last(sql`with ${changes}done as (select 1) select 1`);
    return { events: [], result, duplicate: false };
  }

  const firstSeq = room.lastSeq + 1;
  const rows = drafts.map((draft, index) => {
    const schema = storedEventSchemas[draft.type];
    const payload = schema.shape.payload.parse(draft.payload) as Record<string, unknown>;
    return {
      id: randomUUID(),
      roomId,
      seq: firstSeq + index,
      correlationId:
        draft.correlationId ?? createCorrelationId({ scope: roomId, subject: draft.type, now: timestamp }),
      agent: draft.actor.id,
      agentName: draft.actor.name,
      targetAgent: draft.targetAgent ?? null,
      type: draft.type,
      status: draft.status ?? "success",
      payload,
      nextSteps: draft.nextSteps ?? [],
      errorDetails: draft.errorDetails ?? null,
      idempotencyKey: index === 0 ? (key ?? null) : null,
      idempotencyFingerprint: index === 0 ? fingerprint : null,
      createdAt: timestamp,
    };
  });

  const stored = rows.map(eventFromRow);
  // One statement makes the deferred changes, moves the room's counter, stores the events
  // and queues the notification (and, when the write owns its transaction, goes out with
  // COMMIT): a write costs as few round trips as it can while the room stays locked.
  const bump = tx
    .update(rooms)
    .set({ lastSeq: firstSeq + rows.length - 1, lastActivityAt: timestamp })
    .where(eq(rooms.id, roomId))
    .getSQL();
  const insert = tx.insert(events).values(rows).getSQL();
  await last(
    sql`with ${changes}bumped as (${bump}), inserted as (${insert}) select pg_notify(${EVENTS_CHANNEL}, ${encodeStoredNotification(roomId, stored)})`,
  );
  return { events: stored, result, duplicate: false };
}

/** Appends events that need no domain change of their own. */
export async function appendEvents(
  db: Db,
  roomId: string,
  drafts: EventDraft[],
  options: WriteOptions = {},
): Promise<StoredEvent[]> {
  const { events: stored } = await writeRoomEvents(
    db,
    roomId,
    async (_tx, emit) => {
      for (const draft of drafts) emit(draft);
    },
    options,
  );
  return stored;
}
