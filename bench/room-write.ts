// A room write's latency in process, on PostgreSQL: notes with idempotency keys written one after
// another, then by eight writers at once in the same room (which queue on the room's counter).
// No HTTP, no viewers: the write alone. Ends with one line of JSON.
// Usage: npx tsx bench/room-write.ts
import { migrateDatabase, openPostgres } from "@/db/client";
import { createNode } from "@/lib/canvas/create-node";
import { alice, createTestRoom } from "@/test/fixtures";
import { freshPostgres } from "./support/local-postgres";
import { percentile, round } from "./support/stats";

const database = await freshPostgres();
if (!database) throw new Error("No PostgreSQL server answered at 127.0.0.1:5432; set BENCH_DATABASE_URL to a local server.");
const db = await openPostgres({ url: database.url });
try {
  await migrateDatabase(db);
  const { roomId } = await createTestRoom(db.db);
  let n = 0;
  const one = async () => {
    const started = performance.now();
    await createNode(db.db, roomId, alice, { text: `n${n++}`, x: 0, y: 0 }, { idempotencyKey: `k${n}` });
    return performance.now() - started;
  };
  for (let i = 0; i < 50; i++) await one();
  const seq: number[] = [];
  for (let i = 0; i < 300; i++) seq.push(await one());
  const conc: number[] = [];
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let i = 0; i < 40; i++) conc.push(await one());
    }),
  );
  const wall = performance.now() - t0;
  seq.sort((a, b) => a - b);
  conc.sort((a, b) => a - b);
  console.log(
    JSON.stringify({
      sequential_p50_ms: round(percentile(seq, 50)),
      sequential_p99_ms: round(percentile(seq, 99)),
      concurrent8_p50_ms: round(percentile(conc, 50)),
      concurrent8_p99_ms: round(percentile(conc, 99)),
      concurrent8_writes_per_s: round(320 / (wall / 1000), 0),
    }),
  );
} finally {
  await db.close();
  await database.drop();
}
