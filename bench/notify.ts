// The PostgreSQL NOTIFY ceiling: how many committed transactions a second can each queue a
// notification of a room write's size on one server, with a listener draining the queue, as
// every Parley instance does. Every notifying commit takes one server-wide lock for a moment,
// so this is a ceiling for all rooms and instances on one database together, whatever their
// cores. Ends with one line of JSON.
// Usage: npx tsx bench/notify.ts [-- --connections=8 --seconds=5 --bytes=1200]
import postgres from "postgres";
import { freshPostgres } from "./support/local-postgres";
import { args, round } from "./support/stats";

const options = args();
const CONNECTIONS = Number(options.connections ?? 8);
const SECONDS = Number(options.seconds ?? 5);
const BYTES = Number(options.bytes ?? 1200);

const database = await freshPostgres();
if (!database) throw new Error("No PostgreSQL server answered at 127.0.0.1:5432; set BENCH_DATABASE_URL to a local server.");
const sql = postgres(database.url, { max: CONNECTIONS, onnotice: () => {} });
const listener = postgres(database.url, { max: 1, onnotice: () => {} });
try {
  await sql`create table written (id bigserial primary key, body text not null)`;
  let heard = 0;
  await listener.listen("bench_notify", () => {
    heard += 1;
  });
  const payload = "x".repeat(BYTES);
  const measure = async (notify: boolean) => {
    const until = Date.now() + SECONDS * 1000;
    let committed = 0;
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (Date.now() < until) {
          // A room write's last statement: store a row and queue its notification, then commit.
          if (notify)
            await sql`with stored as (insert into written (body) values (${payload})) select pg_notify('bench_notify', ${payload})`;
          else await sql`insert into written (body) values (${payload})`;
          committed += 1;
        }
      }),
    );
    return committed / SECONDS;
  };
  const plain = await measure(false);
  const notifying = await measure(true);
  await new Promise((resolve) => setTimeout(resolve, 500));
  const result = {
    connections: CONNECTIONS,
    payload_bytes: BYTES,
    commits_per_s: round(plain, 0),
    notifying_commits_per_s: round(notifying, 0),
    notifications_heard: heard,
  };
  console.log(
    `Commits a second over ${CONNECTIONS} connections: ${result.commits_per_s} storing a row, ${result.notifying_commits_per_s} storing a row and notifying (${BYTES} bytes).`,
  );
  console.log(JSON.stringify(result));
} finally {
  await sql.end();
  await listener.end();
  await database.drop();
}
