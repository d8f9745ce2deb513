import { type SQL, sql } from "drizzle-orm";
import type { Sql } from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db, DbOrTx } from "@/db";
import { eventually } from "@/test/fixtures";
import { overSlowNetwork } from "@/test/slow-network";
import { type TestDatabase, createTestDatabase } from "@/test/test-database";
import { type RoomWriteBody, pipelinedExecutor, roomWriteExecutor } from "./room-write-executor";

/** How late every answer from the server arrives in the round-trip tests. */
const DELAY_MS = 60;

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
  await database.db.execute(sql`create table pipelined_probe (id int primary key, label text not null)`);
});
afterAll(() => database.destroy());

/** The rows a raw statement returned (postgres.js gives them as an array). */
const rows = <T>(result: unknown) => result as T[];
const clientOf = (db: Db) => (db as unknown as { $client: Sql }).$client;
const insert = (tx: DbOrTx, id: number, label: string) => tx.execute(sql`insert into pipelined_probe values (${id}, ${label})`);
const insertStatement = (id: number, label: string): SQL => sql`insert into pipelined_probe values (${id}, ${label})`;

const labels = async () =>
  rows<{ label: string }>(await database.db.execute(sql`select label from pipelined_probe order by id`)).map((row) => row.label);
const run = <R>(body: RoomWriteBody<R>) => pipelinedExecutor(clientOf(database.db))(body);

describe("room writes on PostgreSQL", () => {
  it("send BEGIN with the first statement and the last statement with COMMIT", async () => {
    try {
      await overSlowNetwork(database.url!, DELAY_MS, async (db, roundTrips) => {
        const execute = roomWriteExecutor(db);
        const plain = (id: number) =>
          execute(async (tx) => {
            await insert(tx, id, "plain");
            await insert(tx, id + 1, "plain");
          });
        const finished = (id: number) =>
          execute(async (tx, finish) => {
            await insert(tx, id, "finished");
            await finish(insertStatement(id + 1, "last"));
          });
        // A statement new to a connection costs one more trip to prepare: warm both connections
        // (each kind twice in a row, so that it reaches both).
        await plain(100);
        await plain(200);
        await finished(300);
        await finished(400);
        // BEGIN+insert, insert, COMMIT: three where waiting for BEGIN would take four.
        expect(await roundTrips(() => plain(1))).toBe(3);
        // BEGIN+insert, insert+COMMIT.
        expect(await roundTrips(() => finished(3))).toBe(2);
        const kept = await labels();

        await expect(finished(3)).rejects.toThrow(/duplicate key|Failed query/);
        expect(await labels()).toEqual(kept);
        // The connection is clean afterwards: a new write on it commits.
        await finished(5);
        expect(await labels()).toEqual([...kept.slice(0, 4), "finished", "last", ...kept.slice(4)]);
      });
    } finally {
      await database.db.execute(sql`delete from pipelined_probe`);
    }
  });

  it("run a query with parameters outside a transaction in one round trip once it is prepared", async () => {
    await overSlowNetwork(database.url!, DELAY_MS, async (db, roundTrips) => {
      const lookup = (id: number) => db.execute(sql`select label from pipelined_probe where id = ${id}`);
      await lookup(1);
      await lookup(2);
      expect(await roundTrips(() => lookup(3))).toBe(1);
    });
  });

  it("run every statement, the last one included, inside the one transaction", async () => {
    const ids = await run(async (tx, finish) => {
      const [first] = rows<{ id: string }>(await tx.execute(sql`select txid_current()::text as id`));
      await finish(sql`insert into pipelined_probe select 1, txid_current()::text`);
      return first!.id;
    });
    expect(await labels()).toEqual([ids]);
    await database.db.execute(sql`delete from pipelined_probe`);
  });

  it("roll back everything when the work throws, and give the connection back", async () => {
    const failing = () =>
      run(async (tx) => {
        await insert(tx, 10, "lost");
        throw new Error("changed my mind");
      });
    // More failures than the pool has connections: each must be released.
    for (let attempt = 0; attempt < 12; attempt++) await expect(failing()).rejects.toThrow("changed my mind");
    expect(await labels()).toEqual([]);
  });

  it("roll back when a statement fails, with the database's reason", async () => {
    await expect(
      run(async (tx) => {
        await insert(tx, 20, "kept?");
        await insert(tx, 20, "duplicate");
      }),
    ).rejects.toThrow(/duplicate key|Failed query/);
    await expect(
      run(async (tx, finish) => {
        await insert(tx, 21, "kept?");
        await finish(insertStatement(21, "duplicate"));
      }),
    ).rejects.toThrow(/duplicate key|Failed query/);
    expect(await labels()).toEqual([]);
  });

  it("keep concurrent writes apart on a small pool", async () => {
    await Promise.all(
      Array.from({ length: 30 }, (_, index) =>
        run(async (tx, finish) => {
          await insert(tx, 100 + index, `t${index}`);
          if (index % 3 === 0) throw new Error("undo");
          await finish(sql`select 1`);
        }).catch(() => {}),
      ),
    );
    const kept = await labels();
    expect(kept).toHaveLength(20);
    expect(kept.every((label) => Number(label.slice(1)) % 3 !== 0)).toBe(true);
    await database.db.execute(sql`delete from pipelined_probe`);
  });

  it("fail a write whose connection is cut under it, rather than wait for it forever", async () => {
    // The server ends the write's connection between two of its statements, as when it restarts
    // or an administrator ends the session: the write must fail (what it carried is then given
    // back for the run's next write), and the next write must go through.
    const cut = run(async (tx, finish) => {
      await insert(tx, 40, "cut");
      const [own] = rows<{ pid: number }>(await tx.execute(sql`select pg_backend_pid() as pid`));
      await database.db.execute(sql`select pg_terminate_backend(${own!.pid})`);
      await eventually(async () => {
        expect(rows(await database.db.execute(sql`select 1 from pg_stat_activity where pid = ${own!.pid}`))).toEqual([]);
      });
      await finish(insertStatement(41, "cut"));
    });
    const outcome = await Promise.race([
      cut.then(
        () => "committed",
        () => "failed",
      ),
      new Promise((resolve) => setTimeout(() => resolve("still waiting after 3 s"), 3000)),
    ]);
    expect(outcome).toBe("failed");
    expect(await labels()).toEqual([]);
    await run(async (tx, finish) => finish(insertStatement(42, "after")));
    expect(await labels()).toEqual(["after"]);
    await database.db.execute(sql`delete from pipelined_probe`);
  });

  it("leave Drizzle's own transaction as it is, savepoints and all", async () => {
    await database.db.transaction(async (tx) => {
      await insert(tx, 30, "outer");
      await expect(
        tx.transaction(async (inner) => {
          await insert(inner, 31, "inner");
          throw new Error("inner only");
        }),
      ).rejects.toThrow("inner only");
    });
    expect(await labels()).toEqual(["outer"]);
    await database.db.execute(sql`delete from pipelined_probe`);
  });
});
