import { resolveAdminToken } from "@/lib/auth/admin";
import { getEnv } from "@/lib/env";
import { liveRouteFor } from "@/lib/http/live-routes";
import { ensureDemoRoom } from "@/lib/rooms/ensure-demo-room";
import { getRuntime } from "@/lib/runtime";

/**
 * Where Parley's front server (scripts/serve.mjs) finds this build's live routes: it is plain
 * JavaScript outside the bundle, so the bundle hands them over when the server starts.
 */
const LIVE_ROUTES_KEY = Symbol.for("parley.liveRoutes");

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
  (globalThis as Record<symbol, unknown>)[LIVE_ROUTES_KEY] = liveRouteFor;
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
