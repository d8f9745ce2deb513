import { resolveAdminToken } from "@/lib/auth/admin";
import { getEnv } from "@/lib/env";
import { liveRouteFor } from "@/lib/http/live-routes";
import { ensureDemoRoom } from "@/lib/rooms/ensure-demo-room";
import { type Runtime, getRuntime } from "@/lib/runtime";

/**
 * Where Parley's front server (scripts/serve.mjs) finds this build's live routes: it is plain
 * JavaScript outside the bundle, so the bundle hands them over when the server starts.
 */
const LIVE_ROUTES_KEY = Symbol.for("parley.liveRoutes");
/** What the front server calls before it exits on SIGINT or SIGTERM. */
const SHUTDOWN_KEY = Symbol.for("parley.shutdown");

/** Hands running agent runs back to the queue and takes this instance's viewers off the counts. */
async function stopServer(runtime: Runtime): Promise<void> {
  runtime.scheduler?.stop();
  await Promise.allSettled([runtime.worker?.stop(), runtime.presence.shutdown()]);
}

/** Brings an app instance up and tells the person who started it where to go. */
export async function startServer(): Promise<void> {
  const env = getEnv();
  let runtime: Runtime;
  try {
    runtime = await getRuntime();
  } catch (error) {
    console.error(`\n[parley] ${(error as Error).message}\n`);
    process.exit(1);
  }
  (globalThis as Record<symbol, unknown>)[LIVE_ROUTES_KEY] = liveRouteFor;
  (globalThis as Record<symbol, unknown>)[SHUTDOWN_KEY] = () => stopServer(runtime);
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
