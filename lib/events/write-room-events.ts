import { randomUUID } from "node:crypto";
import { type SQL, type SQLWrapper, and, desc, eq, sql } from "drizzle-orm";
import type { Db, DbOrTx, Tx } from "@/db";
import { type EventRow, events, rooms } from "@/db/schema";
import { conflict, notFound } from "@/lib/errors";
import { createCorrelationId } from "@/lib/protocol/correlation-id";
import type { ErrorDetails, MessageStatus, PayloadOf, StoredEvent, StoredEventOf, StoredEventType } from "@/lib/protocol";
import { storedEventSchemas } from "@/lib/protocol";
import { EVENTS_CHANNEL, encodeStoredNotification } from "@/lib/realtime/notification";
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
  options: WriteOptions & ReadBehindLock<P> = {},
): Promise<WriteResult<R>> {
  const carried = options.carry?.take() ?? null;
  try {
    return await roomWriteExecutor(db)(roomWrite(roomId, work, options, carried?.change ?? null));
  } catch (error) {
    carried?.giveBack();
    throw error;
  }
}

/**
 * The same as `writeRoomEvents`, inside a transaction the caller already holds (which carries
 * nothing: whether it commits is the caller's to know).
 */
export async function writeRoomEventsInTransaction<R, P = never>(
  tx: Tx,
  roomId: string,
  work: WriteWork<R, P>,
  options: WriteOptions & ReadBehindLock<P> & { carry?: undefined } = {},
): Promise<WriteResult<R>> {
  return inTransaction(tx, roomWrite(roomId, work, options, null));
}

/**
 * Starts a query at once rather than when something awaits it: Drizzle's queries are sent when
 * their `then` is called, which `await` and `Promise.all` do a microtask later.
 */
function sendNow<T>(query: PromiseLike<T>): Promise<T> {
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
  options: WriteOptions & ReadBehindLock<P>,
  carried: SQL | null,
): RoomWriteBody<WriteResult<R>> {
  return async (tx, finish) => {
    const now = options.now ?? (() => new Date());
    // The key lookup, the body's first read and the carried change are sent right behind the
    // lock, in the same round trip: the server runs them once the lock is held, with a fresh
    // snapshot, so a retry racing its original waits for it and then finds its event.
    const key = options.idempotencyKey;
    // Each query is sent as it is started, so the lock is started first and the body's read
    // last: a read started before the lock would read the room as it was before the lock's wait.
    const locked = sendNow(
      tx.select({ lastSeq: rooms.lastSeq, lastActivityAt: rooms.lastActivityAt }).from(rooms).where(eq(rooms.id, roomId)).for("update"),
    );
    const lookedUp: Promise<EventRow[]> = key ? sendNow(storedUnderKey(tx, roomId, key)) : Promise.resolve([]);
    const made = carried ? sendNow(tx.execute(carried)) : null;
    const reading: PromiseLike<P> | undefined = options.readBehindLock?.(tx);
    const [[room], [existing], read] = await Promise.all([locked, lookedUp, reading, made]);
    if (!room) throw notFound("Room");

    const fingerprint = key && options.change ? changeFingerprint(options.change) : null;
    if (existing) return { events: [replayed(existing, fingerprint)], result: undefined, duplicate: true };

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

    const firstSeq = room.lastSeq + 1;
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
        seq: firstSeq + index,
        correlationId: draft.correlationId ?? createCorrelationId({ scope: roomId, subject: draft.type, now: timestamp }),
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
        createdAt: timestamp,
      };
    });

    const stored = rows.map(eventFromRow);
    // One statement makes the deferred changes, moves the room's counter, stores the events,
    // adds what they ask to the room's count of who asked whom and queues the notification (and,
    // when pipelined, goes out with COMMIT): a write costs as few round trips as it can while the
    // room stays locked.
    const bump = tx
      .update(rooms)
      .set({ lastSeq: firstSeq + rows.length - 1, lastActivityAt: timestamp })
      .where(eq(rooms.id, roomId))
      .getSQL();
    const insert = tx.insert(events).values(rows).getSQL();
    const tally = askTallyChange(roomId, stored);
    await finish(
      sql`with ${changes}bumped as (${bump}), inserted as (${insert})${tally ? sql`, tallied as (${tally})` : sql``} select pg_notify(${EVENTS_CHANNEL}, ${encodeStoredNotification(roomId, stored)})`,
    );
    if (ids[0]) wrote(ids[0]);
    return { events: stored, result, duplicate: false };
  };
}

/** The latest event of a workflow in a room, read behind the room's lock. */
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
    options,
  );
  return stored;
}
