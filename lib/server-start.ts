import { resolveAdminToken } from "@/lib/auth/admin";
import { getEnv } from "@/lib/env";
import { ensureDemoRoom } from "@/lib/rooms/ensure-demo-room";
import { type Runtime, getRuntime } from "@/lib/runtime";

/** How long a shutdown may take before the process exits anyway. */
const SHUTDOWN_LIMIT_MS = 5000;

/** The trace export, when the OpenTelemetry variables name an endpoint. */
let traceExport: { stop(): Promise<void> } | null = null;

/** Hands running agent runs back to the queue and takes this instance's viewers off the counts. */
async function stopServer(runtime: Runtime): Promise<void> {
  runtime.scheduler?.stop();
  await Promise.allSettled([runtime.worker?.stop(), runtime.presence.shutdown()]);
  // What the runs wrote as they stopped is sent before the process ends.
  await traceExport?.stop().catch(() => {});
}

/**
 * Sends workflows as OpenTelemetry traces when an OTLP endpoint is set; the exporter's packages
 * are loaded only then.
 */
async function startTraces(runtime: Runtime): Promise<void> {
  if (!(process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || process.env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim())) return;
  const { startTraceExport } = await import("@/lib/telemetry/trace-export");
  traceExport = startTraceExport(runtime.database, runtime.bus);
  if (traceExport) console.log("[parley] sending workflows as OpenTelemetry traces");
}

/**
 * On SIGINT or SIGTERM, stops cleanly before exiting; a second signal, or a shutdown longer
 * than `SHUTDOWN_LIMIT_MS`, exits at once. `npm start` tells Next.js to leave the signals to
 * Parley (`NEXT_MANUAL_SIG_HANDLE`); otherwise Next.js may exit first, and the runs this
 * instance held are taken over once their leases lapse.
 */
function stopOnSignals(runtime: Runtime): void {
  let stopping = false;
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => {
      if (stopping) process.exit(1);
      stopping = true;
      setTimeout(() => process.exit(0), SHUTDOWN_LIMIT_MS).unref();
      void stopServer(runtime)
        .catch((error) => console.error("[parley] shutdown:", error))
        .finally(() => process.exit(0));
    });
  }
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
  await startTraces(runtime).catch((error) => console.error("[parley] OpenTelemetry export:", error));
  stopOnSignals(runtime);
  resolveAdminToken({ announce: (message) => console.log(`[parley] ${message}`) });
  const base = env.PARLEY_PUBLIC_URL?.replace(/\/+$/, "") ?? `http://localhost:${process.env.PORT ?? "3000"}`;
  console.log(`[parley] database: ${runtime.database.driver === "pglite" ? `embedded (PGlite in ${env.PARLEY_DATA_DIR})` : "PostgreSQL"}`);
  if (env.PARLEY_DEMO_ROOM) {
    const demo = await ensureDemoRoom(runtime.database.db);
    console.log(`[parley] ${demo.created ? "Created a demo room" : "Demo room"}: ${base}/rooms/${demo.id}`);
  }
}
