import type { PgTransactionConfig } from "drizzle-orm/pg-core";
import { PostgresJsSession, PostgresJsTransaction } from "drizzle-orm/postgres-js";
import type { ReservedSql, Sql, TransactionSql } from "postgres";
import type { Db, Tx } from "./client";

interface SessionInternals {
  dialect: ConstructorParameters<typeof PostgresJsSession>[1];
  schema: ConstructorParameters<typeof PostgresJsSession>[2];
  options: ConstructorParameters<typeof PostgresJsSession>[3];
}

/**
 * Makes `db.transaction` on postgres.js send `BEGIN` together with the transaction's first
 * statement instead of waiting a round trip for it. postgres.js writes queries on a
 * reserved connection without waiting for earlier answers, so `BEGIN` and, say, the room
 * lock reach the server in one packet; a failed `BEGIN` still fails the transaction.
 *
 * Everything else is Drizzle's own transaction, on a connection reserved for it.
 */
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

export function pipelineTransactions(db: Db, sql: Sql): void {
  const { dialect, schema, options } = (db as unknown as { session: SessionInternals }).session;
  const transaction = async <T>(work: (tx: Tx) => Promise<T>, config?: PgTransactionConfig): Promise<T> => {
    const reserved = await sql.reserve();
    const begun = reserved.unsafe("begin").execute();
    try {
      const session = new PostgresJsSession(withSavepoints(reserved) as never, dialect, schema, options);
      const tx = new PostgresJsTransaction(dialect, session as never, schema) as unknown as Tx;
      if (config) await tx.setTransaction(config);
      const result = await work(tx);
      await begun;
      await reserved.unsafe("commit");
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
