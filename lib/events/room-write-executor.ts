import type { SQL } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { drizzle } from "drizzle-orm/postgres-js";
import type { ReservedSql, Sql } from "postgres";
import { type Db, type DbOrTx, type Tx, preparingStatements } from "@/db/client";

/**
 * The body of a room write as an executor runs it: queries go through `tx`, and the write's
 * last statement through `finish` — after which nothing may run on `tx`.
 */
export type RoomWriteBody<R> = (tx: DbOrTx, finish: (statement: SQL) => Promise<unknown>) => Promise<R>;

/** Runs a room write in a transaction of its own. */
export type RoomWriteExecutor = <R>(body: RoomWriteBody<R>) => Promise<R>;

/** Runs a room write inside a transaction the caller already holds: its last statement is an ordinary one. */
export function inTransaction<R>(tx: Tx, body: RoomWriteBody<R>): Promise<R> {
  return body(tx, (statement) => tx.execute(statement));
}

/** Drizzle's own transaction: `BEGIN`, the statements one after another, `COMMIT`. */
function drizzleExecutor(db: Db): RoomWriteExecutor {
  return (body) => db.transaction((tx) => inTransaction(tx, body));
}

const dialect = new PgDialect();

/**
 * A room write on postgres.js that saves two round trips: `BEGIN` goes out in the same packet
 * as the first statement, and the last statement in the same packet as `COMMIT`. postgres.js
 * writes queries on a reserved connection without waiting for earlier answers, so this needs
 * nothing but the connection: the statements run through an ordinary Drizzle handle on it.
 * A failed statement aborts the transaction, so a `COMMIT` sent behind it only rolls back; the
 * statement's own error is what the caller sees.
 *
 * A connection the server ends under the write (a restart, a failover, a session ended by an
 * administrator) fails the write at once, and nothing more is sent on it: postgres.js (3.4)
 * neither sends nor fails what is asked of a reserved connection once its socket has closed,
 * and handing such a connection back to the pool breaks the pool. The server has rolled the
 * transaction back, and the pool opens a new connection in its place when it needs one.
 *
 * Room writes only: their bodies never open a nested transaction, which this handle cannot.
 */
export function pipelinedExecutor(client: Sql): RoomWriteExecutor {
  return async (body) => {
    // A reserved connection lacks the `options` its type declares (and Drizzle reads); they are the pool's.
    const reserved = Object.assign(await client.reserve(), { options: client.options });
    let cutBy: Error | null = null;
    let cutOff!: (error: Error) => void;
    const cut = new Promise<never>((_, reject) => (cutOff = reject));
    cut.catch(() => {});
    const connection = preparingStatements(refusingOnceCut(reserved, () => cutBy));
    // The physical connection, once `BEGIN` is written to it.
    const opened: { connection?: { onclose?: (error?: Error) => void } } = {};
    const begun = connection
      .unsafe("begin", [], {
        // Told the connection as `BEGIN` is written to it: the pool calls its `onclose` when the socket closes.
        onexecute: (physical: NonNullable<typeof opened.connection>) => {
          opened.connection = physical;
          physical.onclose = (error) => {
            cutBy = error ?? new Error("The database connection closed during a room write.");
            cutOff(cutBy);
          };
          // Keeps the connection taking queries without waiting: the write pipelines.
          return true;
        },
      } as never)
      .execute();
    let committed = false;
    try {
      // The handle is Drizzle's postgres.js database on the reserved connection; Parley's `Db`
      // names the query surface both drivers share.
      const tx = drizzle({ client: connection }) as unknown as Db;
      const written = body(tx, async (statement) => {
        const query = dialect.sqlToQuery(statement);
        const last = connection.unsafe(query.sql, query.params as never[]).execute();
        const commit = connection.unsafe("commit").execute();
        committed = true;
        const rows = await last.finally(() => commit.catch(() => {}));
        await commit;
        return rows;
      });
      written.catch(() => {});
      const result = await Promise.race([written, cut]);
      await Promise.race([begun, cut]);
      if (!committed) await Promise.race([connection.unsafe("commit"), cut]);
      return result;
    } catch (error) {
      if (cutBy) throw cutBy;
      // The socket failing under a statement: the pool is told it closed a moment later.
      if (connectionLost(error)) {
        cutBy = error as Error;
        throw error;
      }
      await begun.catch(() => {});
      // A failure of the last statement was answered by the COMMIT behind it, which rolled back.
      if (!committed) await Promise.race([connection.unsafe("rollback"), cut]).catch(() => {});
      throw error;
    } finally {
      if (!cutBy) {
        // The connection goes on serving others; what it closing would mean is this write's no more.
        if (opened.connection) opened.connection.onclose = undefined;
        reserved.release();
      }
    }
  };
}

const CONNECTION_ERRORS = new Set(["ECONNRESET", "EPIPE", "ETIMEDOUT", "CONNECTION_CLOSED", "CONNECTION_DESTROYED", "CONNECTION_ENDED"]);

/** Whether a statement failed because its connection did (Drizzle wraps the driver's error as its cause). */
function connectionLost(error: unknown): boolean {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (CONNECTION_ERRORS.has((cause as { code?: string }).code ?? "")) return true;
  }
  return false;
}

/**
 * The reserved connection, refusing every query once `cutBy` names why it closed: a query asked
 * of it then would never settle, or be written to a closed socket.
 */
function refusingOnceCut(reserved: ReservedSql, cutBy: () => Error | null): ReservedSql {
  const unsafe = reserved.unsafe.bind(reserved);
  return Object.assign(reserved, {
    unsafe: (query: string, parameters?: unknown[], options?: object) => {
      const error = cutBy();
      if (!error) return unsafe(query, parameters as never, options);
      const refused = Promise.reject(error);
      refused.catch(() => {});
      // What Drizzle and this executor ask of a query: to be awaited, its rows as arrays, or run.
      return Object.assign(refused, { values: () => refused, execute: () => refused });
    },
  }) as ReservedSql;
}

/** A postgres.js client, which is what can pipeline; PGlite's cannot. */
function postgresClient(db: Db): Sql | null {
  const client = (db as { $client?: unknown }).$client;
  return typeof client === "function" && typeof (client as Partial<Sql>).reserve === "function" ? (client as Sql) : null;
}

/** How room writes run on `db`: pipelined on a PostgreSQL server, Drizzle's own transaction on PGlite. */
export function roomWriteExecutor(db: Db): RoomWriteExecutor {
  const client = postgresClient(db);
  return client ? pipelinedExecutor(client) : drizzleExecutor(db);
}
