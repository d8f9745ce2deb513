import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { parentOf } from "./process-stats";
import { assertLocalDatabaseUrl, databaseUrlFor } from "@/test/local-database-url";

const DEFAULT_SERVER_URL = "postgres://postgres@127.0.0.1:5432/postgres";

/** A fresh database on a local PostgreSQL server, dropped by `drop()`; null when no server answers. */
export async function freshPostgres(serverUrl = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL ?? DEFAULT_SERVER_URL) {
  assertLocalDatabaseUrl(serverUrl);
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {}, connect_timeout: 3 });
  try {
    await admin`select 1`;
  } catch {
    await admin.end().catch(() => {});
    return null;
  }
  // The server's main process, whose children are the backends (for CPU figures); null when
  // it cannot be read (another user's process, a container).
  let postmasterPid: number | null = null;
  try {
    const [row] = await admin<{ pid: number }[]>`select pg_backend_pid() as pid`;
    postmasterPid = parentOf(row!.pid);
  } catch {
    postmasterPid = null;
  }
  const name = `parley_bench_${randomBytes(5).toString("hex")}`;
  await admin.unsafe(`create database ${name}`);
  let dropped = false;
  const drop = async () => {
    if (dropped) return;
    dropped = true;
    await admin.unsafe(`drop database if exists ${name} with (force)`).catch(() => {});
    await admin.end().catch(() => {});
  };
  return { url: databaseUrlFor(serverUrl, name), name, drop, postmasterPid };
}
