import type { SQL } from "drizzle-orm";
import type { PgTransactionConfig } from "drizzle-orm/pg-core";
import { PostgresJsSession, PostgresJsTransaction } from "drizzle-orm/postgres-js";
import type { ReservedSql, Sql, TransactionSql } from "postgres";
import type { Db, Tx } from "./client";

interface SessionInternals {
  dialect: ConstructorParameters<typeof PostgresJsSession>[1] & { sqlToQuery(sql: SQL): { sql: string; params: unknown[] } };
  schema: ConstructorParameters<typeof PostgresJsSession>[2];
  options: ConstructorParameters<typeof PostgresJsSession>[3];
}

const FINISH = Symbol("parley.finishTransaction");
type Finish = (statement: SQL) => Promise<void>;

/**
 * Runs the last statement of a transaction the caller owns. On a pipelined transaction the
 * statement and `COMMIT` go out together; anywhere else it is an ordinary statement and the
 * transaction commits as usual. Nothing may run on `tx` afterwards.
 */
export async function finishTransaction(tx: Tx, statement: SQL): Promise<void> {
  const finish = (tx as unknown as { [FINISH]?: Finish })[FINISH];
  if (finish) await finish(statement);
  else await tx.execute(statement);
}

/**
 * Drizzle sends every query as an unnamed statement unless it was built with `.prepare()`,
 * and postgres.js describes an unnamed statement with parameters before running it: two
 * round trips per query. Named statements, prepared once per connection and reused, take one.
 */
export function preparingStatements<T extends Sql | ReservedSql>(client: T): T {
  const unsafe = client.unsafe.bind(client);
  return Object.assign(client, {
    unsafe: (query: string, parameters?: unknown[], options?: object) =>
      unsafe(query, parameters as never, { ...options, prepare: true }),
  });
}

/** A reserved connection that can also nest transactions as savepoints, as Drizzle expects. */
function withSavepoints(reserved: ReservedSql): TransactionSql {
  let next = 0;
  const savepoint = async <T>(work: (sql: TransactionSql) => Promise<T>): Promise<T> => {
    const name = `s${next++}`;
    await reserved.unsafe(`savepoint ${name}`);
    try {
      const result = await work(client);
      await reserved.unsafe(`release savepoint ${name}`);
      return result;
    } catch (error) {
      await reserved.unsafe(`rollback to savepoint ${name}`);
      throw error;
    }
  };
  const client = Object.assign(reserved, { savepoint }) as unknown as TransactionSql;
  return client;
}

/**
 * Makes `db.transaction` on postgres.js save round trips: `BEGIN` is sent together with the
 * transaction's first statement, and `finishTransaction` sends the last statement together
 * with `COMMIT`. postgres.js writes queries on a reserved connection without waiting for
 * earlier answers. A failed statement aborts the transaction, so a `COMMIT` sent behind it
 * only rolls back; the statement's own error is what the caller sees.
 *
 * Everything else is Drizzle's own transaction, on a connection reserved for it.
 */
export function pipelineTransactions(db: Db, sql: Sql): void {
  const { dialect, schema, options } = (db as unknown as { session: SessionInternals }).session;
  const transaction = async <T>(work: (tx: Tx) => Promise<T>, config?: PgTransactionConfig): Promise<T> => {
    const reserved = preparingStatements(await sql.reserve());
    const begun = reserved.unsafe("begin").execute();
    try {
      const session = new PostgresJsSession(withSavepoints(reserved) as never, dialect, schema, options);
      const tx = new PostgresJsTransaction(dialect, session as never, schema) as unknown as Tx;
      let committed = false;
      const finish: Finish = async (statement) => {
        const query = dialect.sqlToQuery(statement);
        const last = reserved.unsafe(query.sql, query.params as never[]).execute();
        const commit = reserved.unsafe("commit").execute();
        committed = true;
        await last.finally(() => commit.catch(() => {}));
        await commit;
      };
      Object.assign(tx, { [FINISH]: finish });
      if (config) await tx.setTransaction(config);
      const result = await work(tx);
      await begun;
      if (!committed) await reserved.unsafe("commit");
      return result;
    } catch (error) {
      await begun.catch(() => {});
      await reserved.unsafe("rollback").catch(() => {});
      throw error;
    } finally {
      reserved.release();
    }
  };
  Object.assign(db, { transaction });
}
