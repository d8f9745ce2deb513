import type { SQL } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { drizzle } from "drizzle-orm/postgres-js";
import type { Sql } from "postgres";
import { type Db, type DbOrTx, type Tx, preparingStatements } from "@/db/client";

/**
 * The body of a room write as an executor runs it: queries go through `tx`, and the write's
 * last statement through `finish` — after which nothing may run on `tx`.
 */
export type RoomWriteBody<R> = (tx: DbOrTx, finish: (statement: SQL) => Promise<void>) => Promise<R>;

/** Runs a room write in a transaction of its own. */
export type RoomWriteExecutor = <R>(body: RoomWriteBody<R>) => Promise<R>;

/** Runs a room write inside a transaction the caller already holds: its last statement is an ordinary one. */
export function inTransaction<R>(tx: Tx, body: RoomWriteBody<R>): Promise<R> {
  return body(tx, async (statement) => {
    await tx.execute(statement);
  });
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
 * Room writes only: their bodies never open a nested transaction, which this handle cannot.
 */
export function pipelinedExecutor(client: Sql): RoomWriteExecutor {
  return async (body) => {
    // A reserved connection lacks the `options` its type declares (and Drizzle reads); they are the pool's.
    const connection = preparingStatements(Object.assign(await client.reserve(), { options: client.options }));
    const begun = connection.unsafe("begin").execute();
    let committed = false;
    try {
      // The handle is Drizzle's postgres.js database on the reserved connection; Parley's `Db`
      // names the query surface both drivers share.
      const tx = drizzle({ client: connection }) as unknown as Db;
      const result = await body(tx, async (statement) => {
        const query = dialect.sqlToQuery(statement);
        const last = connection.unsafe(query.sql, query.params as never[]).execute();
        const commit = connection.unsafe("commit").execute();
        committed = true;
        await last.finally(() => commit.catch(() => {}));
        await commit;
      });
      await begun;
      if (!committed) await connection.unsafe("commit");
      return result;
    } catch (error) {
      await begun.catch(() => {});
      await connection.unsafe("rollback").catch(() => {});
      throw error;
    } finally {
      connection.release();
    }
  };
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
