import { type ChildProcess, spawn } from "node:child_process";
import net from "node:net";
import path from "node:path";
import type { Database } from "@/db";
import { RoomBus } from "@/lib/realtime/bus";
import { type TraceExport, startTraceExport } from "@/lib/telemetry/trace-export";

/**
 * `BENCH_OTEL=1` measures with the OpenTelemetry export on: a local OTLP/HTTP receiver in a process
 * of its own (scripts/otlp-waterfall.mjs), its address given as `OTEL_EXPORTER_OTLP_ENDPOINT`.
 */
export const BENCH_OTEL = process.env.BENCH_OTEL === "1";

let receiver: { child: ChildProcess; endpoint: string } | null = null;

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Starts the receiver once and points the standard variable at it; null when the export is off. */
export async function benchReceiver(): Promise<string | null> {
  if (!BENCH_OTEL) return null;
  if (!receiver) {
    const port = await freePort();
    const child = spawn(process.execPath, [path.resolve(import.meta.dirname, "..", "..", "scripts", "otlp-waterfall.mjs"), String(port)], {
      stdio: "ignore",
    });
    const endpoint = `http://127.0.0.1:${port}`;
    for (let tries = 0; tries < 100; tries++) {
      const up = await fetch(endpoint).then(
        () => true,
        () => false,
      );
      if (up) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    receiver = { child, endpoint };
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = endpoint;
    process.on("exit", () => child.kill());
  }
  return receiver.endpoint;
}

/** The export as a server runs it (its own bus), for an in-process benchmark; null when off. */
export async function benchTraceExport(database: Database): Promise<{ stop(): Promise<void> } | null> {
  if (!(await benchReceiver())) return null;
  const bus = new RoomBus(database);
  await bus.start();
  const traces: TraceExport | null = startTraceExport(database, bus);
  return {
    async stop() {
      await traces?.stop();
      await bus.stop();
    },
  };
}
