import { randomUUID } from "node:crypto";
import { type SQL, type SQLWrapper, and, desc, eq, sql } from "drizzle-orm";
import type { Db, DbOrTx, Tx } from "@/db";
import { type EventRow, events, rooms } from "@/db/schema";
import { conflict, notFound } from "@/lib/errors";
import { createCorrelationId } from "@/lib/protocol/correlation-id";
import type { ErrorDetails, MessageStatus, PayloadOf, StoredEvent, StoredEventOf, StoredEventType } from "@/lib/protocol";
import { storedEventSchemas } from "@/lib/protocol";
import { EVENTS_CHANNEL, MAX_NOTIFICATION_BYTES } from "@/lib/realtime/notification";
import { rowsOf } from "@/db/rows";
import { askTallyChange } from "./ask-tally";
import { ambientCause, wrote } from "./cause";
import { eventFromRow } from "./event-row";
import { type ChangeIdentity, changeFingerprint } from "./idempotency";
import { type RoomWriteBody, inTransaction, roomWriteExecutor } from "./room-write-executor";
/** Who is writing: becomes the envelope's `agent` and `agent_name`. */
export interface Actor {
  id: string;
  name: string;
}

export const SYSTEM_ACTOR: Actor = { id: "system", name: "Parley" };
export const ADMIN_ACTOR: Actor = { id: "admin", name: "Admin" };

export type { ChangeIdentity } from "./idempotency";

export interface EventDraft<T extends StoredEventType = StoredEventType> {
  type: T;
  payload: PayloadOf<T>;
  actor: Actor;
  correlationId?: string;
  targetAgent?: string | null;
  status?: MessageStatus;
  nextSteps?: string[];
  errorDetails?: ErrorDetails | null;
  /** The event's id, when the writer must name it before it is stored (a run records the event that queued it). */
  id?: string;
  /** The event that caused this one, when the writer knows better than the work it is part of. */
  causationId?: string | null;
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
 * timestamps follow sequence order; use it for the rows' own times. `read` is what the
 * write's `readBehindLock` read, when it has one.
 */
export type WriteWork<R, P = never> = (tx: DbOrTx, emit: Emit, at: Date, defer: Defer, read: P | undefined) => Promise<R>;

/**
 * A read the body needs first, made right behind the room lock in the same round trip (as the
 * key lookup is): it runs once the lock is held, so it sees every write before this one.
 */
export interface ReadBehindLock<P> {
  readBehindLock?: (tx: DbOrTx) => PromiseLike<P>;
}

/**
 * A write whose body needs no room lock: what it reads and changes is its own (a new row, a row
 * it locks itself), so the room is locked only by the statement that stores the events, for as
 * long as that statement and COMMIT take. `readFirst` is the body's read, made before it runs
 * (in the same round trip as BEGIN), without the room lock. A retried idempotency key is caught
 * by the unique index and answered with the original event.
 */
export interface LockAtEnd<P> {
  lockAtEnd?: boolean;
  readFirst?: (tx: DbOrTx) => PromiseLike<P>;
}

/**
 * The room's row as the caller's transaction holds it locked, with nothing written to it since it
 * was read: a write in that transaction takes its clock from it rather than locking and reading
 * the room again.
 */
export interface LockedRoom {
  lastActivityAt: Date;
}

/**
 * A change that rides along with a room write: taken as the write starts, made in its
 * transaction right behind the room lock (in the same round trip), and given back when the
 * write fails, for a later write to carry. A duplicate write still makes it.
 */
export interface CarriedChanges {
  take(): { change: SQL; giveBack(): void } | null;
}

/** What the caller of a write passes along: a retry key, changes to carry and, in tests, a clock. */
export interface WriteRequestOptions {
  /** A retried write with the same key (per room) does nothing and returns the original event. */
  idempotencyKey?: string;
  carry?: CarriedChanges;
  now?: () => Date;
}

/**
 * A write that may carry an idempotency key must say what change it makes (`change`): a key
 * reused for a different change is a 409 rather than a silent replay. The types enforce it:
 * with a key, `change` is required.
 */
export type WriteOptions = Omit<WriteRequestOptions, "idempotencyKey"> &
  ({ idempotencyKey?: undefined; change?: ChangeIdentity } | { idempotencyKey: string | undefined; change: ChangeIdentity });

export interface WriteResult<R> {
  /** The events the write stored; for a duplicate, the one stored under its key the first time. */
  events: StoredEvent[];
  /** What `work` returned; undefined when the write was a duplicate. */
  result: R | undefined;
  duplicate: boolean;
}

/**
 * The first event of `type` among `events` (a write's, or the original of a retried one),
 * typed. A write that names its change always has one: its first event is of that type.
 */
export function firstEvent<T extends StoredEventType>(events: StoredEvent[], type: T): StoredEventOf<T> {
  const event = events.find((candidate): candidate is StoredEventOf<T> => candidate.type === type);
  if (!event) throw new Error(`The write stored no ${type} event.`);
  return event;
}

/** The payload of `firstEvent(events, type)`. */
export function eventPayload<T extends StoredEventType>(events: StoredEvent[], type: T): PayloadOf<T> {
  return firstEvent(events, type).payload;
}

/**
 * Runs one write in a room as a single transaction: locks the room, runs `work` (which
 * changes domain rows and emits the events describing them), then gives the events the
 * room's next sequence numbers, stores them and notifies every app instance on commit.
 *
 * The room row lock serialises writers per room, so sequence numbers are gapless and in
 * commit order — a client resuming after seq N can never miss an event. On PostgreSQL the
 * write is pipelined (see `pipelinedExecutor`); on PGlite it is Drizzle's own transaction.
 */
export async function writeRoomEvents<R, P = never>(
  db: Db,
  roomId: string,
  work: WriteWork<R, P>,
  options: WriteOptions & ReadBehindLock<P> & LockAtEnd<P> = {},
): Promise<WriteResult<R>> {
  const carried = options.carry?.take() ?? null;
  try {
    return await roomWriteExecutor(db)(roomWrite(roomId, work, options, carried?.change ?? null));
  } catch (error) {
    carried?.giveBack();
    if (!options.lockAtEnd) throw error;
    const key = options.idempotencyKey;
    // A retry, or a write racing its original: the original has committed (the unique index
    // waited for it), and is answered as the lookup under the lock would have answered it.
    if (key && keyTaken(error)) {
      const [existing] = await storedUnderKey(db, roomId, key);
      if (existing) {
        return {
          events: [replayed(existing, options.change ? changeFingerprint(options.change) : null)],
          result: undefined,
          duplicate: true,
        };
      }
    }
    if (isDatabaseError(error) && !(await roomExists(db, roomId))) throw notFound("Room");
    throw error;
  }
}

/** A failure the database reported (a constraint, a missing row it refers to), as opposed to one of the body's own. */
function isDatabaseError(error: unknown): boolean {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (typeof (cause as { code?: unknown }).code === "string") return true;
  }
  return false;
}

async function roomExists(db: Db, roomId: string): Promise<boolean> {
  const [room] = await db.select({ id: rooms.id }).from(rooms).where(eq(rooms.id, roomId));
  return room !== undefined;
}

/**
 * The same as `writeRoomEvents`, inside a transaction the caller already holds (which carries
 * nothing: whether it commits is the caller's to know).
 */
export async function writeRoomEventsInTransaction<R, P = never>(
  tx: Tx,
  roomId: string,
  work: WriteWork<R, P>,
  options: WriteOptions & ReadBehindLock<P> & { carry?: undefined; lockAtEnd?: undefined; locked?: LockedRoom } = {},
): Promise<WriteResult<R>> {
  return inTransaction(tx, roomWrite(roomId, work, options, null));
}

/**
 * Starts a query at once rather than when something awaits it: Drizzle's queries are sent when
 * their `then` is called, which `await` and `Promise.all` do a microtask later.
 */
export function sendNow<T>(query: PromiseLike<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    query.then(resolve, reject);
  });
}

function storedUnderKey(db: DbOrTx, roomId: string, key: string) {
  return db
    .select()
    .from(events)
    .where(and(eq(events.roomId, roomId), eq(events.idempotencyKey, key)));
}

/**
 * Idempotency is decided here, once, by the fingerprint of the change a key was first used for:
 * the same change again gets the event stored for it (the retry does nothing); a different
 * change under the same key is a 409.
 */
function replayed(existing: EventRow, fingerprint: string | null): StoredEvent {
  if (existing.idempotencyFingerprint !== fingerprint) {
    throw conflict(
      `Idempotency-Key "${existing.idempotencyKey}" was already used for a different change (${existing.type}); send a new key for a new change.`,
    );
  }
  return eventFromRow(existing);
}

/**
 * The first event a write with these options stored earlier, looked up before writing and
 * decided as the write decides it: the original event when the same change was made under the
 * key, a 409 when the key was used for a different change, null when nothing was written under
 * it (or there is no key). For a writer that spends something before it writes (such as a run's
 * request allowance) and must not spend it again for a retry.
 */
export async function earlierWrite<T extends StoredEventType>(
  db: DbOrTx,
  roomId: string,
  options: { idempotencyKey: string | undefined; change: ChangeIdentity<T> },
): Promise<StoredEventOf<T> | null> {
  const key = options.idempotencyKey;
  if (!key) return null;
  const [existing] = await storedUnderKey(db, roomId, key);
  return existing ? firstEvent([replayed(existing, changeFingerprint(options.change))], options.change.type) : null;
}

function roomWrite<R, P>(
  roomId: string,
  work: WriteWork<R, P>,
  options: WriteOptions & ReadBehindLock<P> & LockAtEnd<P> & { locked?: LockedRoom },
  carried: SQL | null,
): RoomWriteBody<WriteResult<R>> {
  return async (tx, finish) => {
    const now = options.now ?? (() => new Date());
    const key = options.idempotencyKey;
    const fingerprint = key && options.change ? changeFingerprint(options.change) : null;
    let clock: Date;
    let read: P | undefined;
    if (options.lockAtEnd) {
      // Nothing is locked before the statement that stores the events: the carried change and the
      // body's read go out first (with BEGIN), and a retried key is caught by the unique index.
      const made = carried ? sendNow(tx.execute(carried)) : null;
      const reading: PromiseLike<P> | undefined = options.readFirst?.(tx);
      [read] = await Promise.all([reading, made]);
      clock = now();
    } else {
      // A caller holding the room's lock, having read its row, is not made to lock and read it again.
      let room: LockedRoom | undefined = key ? undefined : options.locked;
      if (room) read = await options.readBehindLock?.(tx);
      else {
        // The key lookup, the body's first read and the carried change are sent right behind the
        // lock, in the same round trip: the server runs them once the lock is held, with a fresh
        // snapshot, so a retry racing its original waits for it and then finds its event.
        // Each query is sent as it is started, so the lock is started first and the body's read
        // last: a read started before the lock would read the room as it was before the lock's wait.
        const locked = sendNow(tx.select({ lastActivityAt: rooms.lastActivityAt }).from(rooms).where(eq(rooms.id, roomId)).for("update"));
        const lookedUp: Promise<EventRow[]> = key ? sendNow(storedUnderKey(tx, roomId, key)) : Promise.resolve([]);
        const made = carried ? sendNow(tx.execute(carried)) : null;
        const reading: PromiseLike<P> | undefined = options.readBehindLock?.(tx);
        const [[found], [existing], behind] = await Promise.all([locked, lookedUp, reading, made]);
        if (!found) throw notFound("Room");
        if (existing) return { events: [replayed(existing, fingerprint)], result: undefined, duplicate: true };
        room = found;
        read = behind;
      }
      const time = now();
      clock = time < room.lastActivityAt ? room.lastActivityAt : time;
    }

    const drafts: EventDraft[] = [];
    const deferred: SQL[] = [];
    const result = await work(
      tx,
      (draft) => {
        drafts.push(draft as EventDraft);
      },
      clock,
      (change) => {
        deferred.push(change.getSQL());
      },
      read,
    );
    if (options.change && drafts[0] && drafts[0].type !== options.change.type) {
      throw new Error(`A write named ${options.change.type} but its first event is ${drafts[0].type}.`);
    }
    const changes = sql.join(
      deferred.map((change, index) => sql`${sql.raw(`change_${index}`)} as (${change}), `),
      sql``,
    );
    if (drafts.length === 0) {
      if (deferred.length > 0) await finish(sql`with ${changes}done as (select 1) select 1`);
      return { events: [], result, duplicate: false };
    }

    const count = drafts.length;
    const ids = drafts.map((draft) => draft.id ?? randomUUID());
    const cause = ambientCause();
    // The first event is caused by the work the write is part of; one written outside any (a
    // timer's, a direct call's) that joins a workflow continues it from its latest event.
    const rootCause = cause.eventId ?? (drafts[0]?.correlationId ? await latestOf(tx, roomId, drafts[0].correlationId) : null);
    const rows = drafts.map((draft, index) => {
      const schema = storedEventSchemas[draft.type];
      const payload = schema.shape.payload.parse(draft.payload) as Record<string, unknown>;
      return {
        id: ids[index] ?? randomUUID(),
        roomId,
        seq: 0,
        correlationId: draft.correlationId ?? createCorrelationId({ scope: roomId, subject: draft.type, now: clock }),
        // Within a write, what follows the first event is its consequence.
        causationId: draft.causationId !== undefined ? draft.causationId : index === 0 ? rootCause : (ids[0] ?? null),
        traceParent: index === 0 && rootCause === null ? cause.traceparent : null,
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
        createdAt: clock,
      };
    });
    const drafted = rows.map(eventFromRow);
    // One statement makes the deferred changes, moves the room's counter (taking the room's lock
    // until COMMIT, which goes out with it when pipelined) and numbers the events from the counter
    // it moved, stores them, adds what they ask to the room's count of who asked whom and queues
    // the notification. The counter's row lock serialises writers per room, so sequence numbers
    // are gapless and in commit order; a room that is not there stores nothing.
    const bump = sql`update ${rooms} set last_seq = last_seq + ${count}::int, last_activity_at = greatest(last_activity_at, ${clock.toISOString()}::timestamptz) where id = ${roomId} returning last_seq - ${count}::int as base, last_activity_at as at`;
    const insert = tx
      .insert(events)
      .values(
        rows.map((row, index) => ({
          ...row,
          seq: sql`(select base from bumped) + ${index + 1}::int`,
          createdAt: sql`(select at from bumped)`,
        })),
      )
      .getSQL();
    const tally = askTallyChange(roomId, drafted);
    const [numbered] = rowsOf<{ base: string | number; at: string }>(
      await finish(
        sql`with ${changes}bumped as (${bump}), inserted as (${insert})${tally ? sql`, tallied as (${tally})` : sql``} select base::text as base, ${ISO_TIMESTAMP} as at, pg_notify(${EVENTS_CHANNEL}, ${notificationOf(roomId, drafted)}) from bumped`,
      ),
    );
    if (!numbered) throw notFound("Room");
    const base = Number(numbered.base);
    const stored = drafted.map((event, index) => ({ ...event, seq: base + index + 1, timestamp: numbered.at }));
    if (ids[0]) wrote(ids[0]);
    return { events: stored, result, duplicate: false };
  };
}

/** The counter's timestamp as `Date.prototype.toISOString` writes it, for the notification and the answer. */
const ISO_TIMESTAMP = sql.raw(`to_char(at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`);

const MARK = `@@${randomUUID().slice(0, 8)}`;
const MARKS = new RegExp(`"${MARK}(seq|at)@@"`, "g");

/**
 * The notification as SQL: the events as JSON with their sequence numbers and timestamp, which
 * only the statement knows, put in by the statement (`bumped.base`, `bumped.at`). The JSON is
 * written here with marks where those go, and cut at the marks.
 */
function notificationOf(roomId: string, drafted: StoredEvent[]): SQL {
  const marked = drafted.map((event) => ({ ...event, seq: `${MARK}seq@@` as unknown as number, timestamp: `${MARK}at@@` }));
  const range = { k: "stored", room: roomId, from: `${MARK}seq@@`, to: `${MARK}seq@@` };
  const inline = JSON.stringify({ ...range, events: marked });
  // The marks are shorter than what replaces them only by a timestamp's width per event.
  const text = Buffer.byteLength(inline) + 32 * drafted.length <= MAX_NOTIFICATION_BYTES ? inline : JSON.stringify(range);
  const parts: SQL[] = [];
  let last = 0;
  let seqs = 0;
  const count = drafted.length;
  for (const match of text.matchAll(MARKS)) {
    parts.push(sql`${text.slice(last, match.index)}::text`);
    if (match[1] === "at") parts.push(sql`'"' || ${ISO_TIMESTAMP} || '"'`);
    else {
      // `from`, `to`, then each event's own.
      const offset = seqs === 0 ? 1 : seqs === 1 ? count : seqs - 1;
      parts.push(sql`(base + ${offset}::int)::text`);
      seqs += 1;
    }
    last = match.index + match[0].length;
  }
  parts.push(sql`${text.slice(last)}::text`);
  return sql.join(parts, sql` || `);
}

/** Whether a write failed because its idempotency key was already stored in the room (the unique index). */
function keyTaken(error: unknown): boolean {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    const { code, constraint_name, constraint } = cause as { code?: string; constraint_name?: string; constraint?: string };
    if (code === "23505" && (constraint_name ?? constraint) === "events_room_idempotency_idx") return true;
  }
  return false;
}

/** The latest event of a workflow in a room: the cause of a write that continues it from outside. */
async function latestOf(tx: DbOrTx, roomId: string, correlationId: string): Promise<string | null> {
  const [latest] = await tx
    .select({ id: events.id })
    .from(events)
    .where(and(eq(events.roomId, roomId), eq(events.correlationId, correlationId)))
    .orderBy(desc(events.seq))
    .limit(1);
  return latest?.id ?? null;
}

/** Appends events that need no domain change of their own. */
export async function appendEvents(db: Db, roomId: string, drafts: EventDraft[], options: WriteOptions = {}): Promise<StoredEvent[]> {
  const { events: stored } = await writeRoomEvents(
    db,
    roomId,
    async (_tx, emit) => {
      for (const draft of drafts) emit(draft);
    },
    { ...options, lockAtEnd: true },
  );
  return stored;
}
