import { resolveAdminToken } from "@/lib/auth/admin";
import { getEnv } from "@/lib/env";
import { ensureDemoRoom } from "@/lib/rooms/ensure-demo-room";
import { getRuntime } from "@/lib/runtime";

/** Brings an app instance up and tells the person who started it where to go. */
export async function startServer(): Promise<void> {
  const env = getEnv();
  let runtime;
  try {
    runtime = await getRuntime();
  } catch (error) {
    console.error(`\n[parley] ${(error as Error).message}\n`);
    process.exit(1);
  }
  resolveAdminToken({ announce: (message) => console.log(`[parley] ${message}`) });
  const port = process.env.PORT ?? "3000";
  const base = `http://localhost:${port}`;
  console.log(
    `[parley] database: ${runtime.database.driver === "pglite" ? `embedded (PGlite in ${env.PARLEY_DATA_DIR})` : "PostgreSQL"}`,
  );
  if (env.PARLEY_DEMO_ROOM) {
    const demo = await ensureDemoRoom(runtime.database.db);
    console.log(`[parley] ${demo.created ? "Created a demo room" : "Demo room"}: ${base}/rooms/${demo.id}`);
  }
}
