import net from "node:net";
import type { AddressInfo } from "node:net";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestDatabase, createTestDatabase } from "@/test/test-database";
import { type Database, openPostgres } from "./client";
import { finishTransaction } from "./pipelined-transaction";

/** A TCP proxy that counts the writes the client makes, i.e. how often it waited for the server. */
async function countingProxy(targetPort: number) {
  let clientWrites = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, "127.0.0.1");
    sockets.add(client).add(upstream);
    client.on("data", (chunk) => {
      clientWrites += 1;
      upstream.write(chunk);
    });
    upstream.pipe(client);
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    writes: () => clientWrites,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
  await database.db.execute(sql`create table pipelined_probe (id int primary key, label text not null)`);
});
afterAll(() => database.destroy());

/** The rows a raw statement returned (postgres.js gives them as an array). */
const rows = <T>(result: unknown) => result as T[];

const labels = async () =>
  rows<{ label: string }>(await database.db.execute(sql`select label from pipelined_probe order by id`)).map((row) => row.label);

/** Runs `check` with a database reached through a proxy that counts the client's writes. */
async function throughCountingProxy(check: (db: Database["db"], writes: () => number) => Promise<void>) {
  const url = new URL(database.url!);
  const proxy = await countingProxy(Number(url.port || 5432));
  url.port = String(proxy.port);
  const proxied: Database = await openPostgres({ url: url.toString(), max: 2 });
  try {
    await proxied.db.execute(sql`select 1`);
    const start = proxy.writes();
    await check(proxied.db, () => proxy.writes() - start);
  } finally {
    await proxied.close();
    await proxy.close();
    await database.db.execute(sql`delete from pipelined_probe`);
  }
}

describe("transactions on PostgreSQL", () => {
  it("send BEGIN with the first statement: one write less than a round trip per statement", async () => {
    await throughCountingProxy(async (db, writes) => {
      await db.transaction(async (tx) => {
        await tx.execute(sql`insert into pipelined_probe values (1, 'first')`);
        await tx.execute(sql`insert into pipelined_probe values (2, 'second')`);
      });
      // BEGIN+insert, insert, COMMIT: three writes where waiting for BEGIN would take four.
      expect(writes()).toBe(3);
      expect(await labels()).toEqual(["first", "second"]);
    });
  });

  it("send the last statement with COMMIT when the caller finishes the transaction", async () => {
    await throughCountingProxy(async (db, writes) => {
      await db.transaction(async (tx) => {
        await tx.execute(sql`insert into pipelined_probe values (3, 'first')`);
        await finishTransaction(tx, sql`insert into pipelined_probe values (4, 'last')`);
      });
      // BEGIN+insert, insert+COMMIT.
      expect(writes()).toBe(2);
      expect(await labels()).toEqual(["first", "last"]);

      await expect(
        db.transaction(async (tx) => {
          await tx.execute(sql`insert into pipelined_probe values (5, 'undone')`);
          await finishTransaction(tx, sql`insert into pipelined_probe values (4, 'clash')`);
        }),
      ).rejects.toThrow(/duplicate key|Failed query/);
      expect(await labels()).toEqual(["first", "last"]);
      // The connection is clean afterwards: a new transaction on it commits.
      await db.transaction(async (tx) => {
        await finishTransaction(tx, sql`insert into pipelined_probe values (6, 'after')`);
      });
      expect(await labels()).toEqual(["first", "last", "after"]);
    });
  });

  it("run every statement inside the one transaction", async () => {
    const ids = await database.db.transaction(async (tx) => {
      const [first] = rows<{ id: string }>(await tx.execute(sql`select txid_current()::text as id`));
      const [second] = rows<{ id: string }>(await tx.execute(sql`select txid_current()::text as id`));
      return [first!.id, second!.id];
    });
    expect(ids[0]).toBe(ids[1]);
  });

  it("roll back everything when the work throws, and give the connection back", async () => {
    const failing = () =>
      database.db.transaction(async (tx) => {
        await tx.execute(sql`insert into pipelined_probe values (10, 'lost')`);
        throw new Error("changed my mind");
      });
    // More failures than the pool has connections: each must be released.
    for (let attempt = 0; attempt < 12; attempt++) await expect(failing()).rejects.toThrow("changed my mind");
    expect(await labels()).toEqual([]);
  });

  it("roll back when a statement fails, with the database's reason", async () => {
    await expect(
      database.db.transaction(async (tx) => {
        await tx.execute(sql`insert into pipelined_probe values (20, 'kept?')`);
        await tx.execute(sql`insert into pipelined_probe values (20, 'duplicate')`);
      }),
    ).rejects.toThrow(/duplicate key|Failed query/);
    expect(await labels()).toEqual([]);
  });

  it("nest transactions as savepoints: an inner failure undoes only the inner work", async () => {
    await database.db.transaction(async (tx) => {
      await tx.execute(sql`insert into pipelined_probe values (30, 'outer')`);
      await expect(
        tx.transaction(async (inner) => {
          await inner.execute(sql`insert into pipelined_probe values (31, 'inner')`);
          throw new Error("inner only");
        }),
      ).rejects.toThrow("inner only");
      await tx.transaction(async (inner) => {
        await inner.execute(sql`insert into pipelined_probe values (32, 'inner kept')`);
      });
    });
    expect(await labels()).toEqual(["outer", "inner kept"]);
    await database.db.execute(sql`delete from pipelined_probe`);
  });

  it("honour the isolation level and access mode asked for", async () => {
    const level = await database.db.transaction(
      async (tx) => rows<{ level: string }>(await tx.execute(sql`select current_setting('transaction_isolation') as level`))[0]!.level,
      { isolationLevel: "repeatable read", accessMode: "read only" },
    );
    expect(level).toBe("repeatable read");
    await expect(
      database.db.transaction(async (tx) => tx.execute(sql`insert into pipelined_probe values (40, 'no')`), { accessMode: "read only" }),
    ).rejects.toThrow(/read-only|Failed query/);
  });

  it("keep concurrent transactions apart on a small pool", async () => {
    await Promise.all(
      Array.from({ length: 30 }, (_, index) =>
        database.db.transaction(async (tx) => {
          await tx.execute(sql`insert into pipelined_probe values (${100 + index}, ${`t${index}`})`);
          if (index % 3 === 0) throw new Error("undo");
        }).catch(() => {}),
      ),
    );
    const kept = await labels();
    expect(kept).toHaveLength(20);
    expect(kept.every((label) => Number(label.slice(1)) % 3 !== 0)).toBe(true);
  });
});
