#!/usr/bin/env node
// Parley's production server. Next.js serves the app; the live path (each room's event
// stream and the canvas writes) goes straight to Parley's own handlers, skipping Next.js's
// per-request routing and response piping. Those handlers come from the build itself: the
// app registers them when it starts (instrumentation.ts), and Next.js routes the same paths
// to the same handlers, so `next start` and `next dev` behave the same, only slower.
// Usage: node scripts/serve.mjs [-p PORT]   (PORT, else 3000; NODE_ENV defaults to production)
import http from "node:http";
import path from "node:path";

process.env.NODE_ENV ??= "production";
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const portFlag = process.argv.indexOf("-p");
const port = Number(portFlag >= 0 ? process.argv[portFlag + 1] : (process.env.PORT ?? 3000));
process.env.PORT = String(port);

const { default: next } = await import("next");
const app = next({ dev: false, dir: root, port, hostname: "localhost" });
const handle = app.getRequestHandler();
await app.prepare();

// Registered once the app has started; until then Next.js serves the live path too.
const LIVE_ROUTES = Symbol.for("parley.liveRoutes");

const server = http.createServer((request, response) => {
  const liveRouteFor = globalThis[LIVE_ROUTES];
  const live = typeof liveRouteFor === "function" ? liveRouteFor(request) : null;
  const served = live ? live(request, response) : handle(request, response);
  served.catch((error) => {
    console.error("[parley] request failed:", error);
    if (!response.headersSent) response.writeHead(500).end();
    else response.destroy();
  });
});
server.on("error", (error) => {
  console.error(`[parley] Cannot serve on port ${port}: ${error.message}`);
  process.exit(1);
});
server.listen(port, () => {
  console.log(`[parley] Listening on http://localhost:${port}`);
  // Next.js starts the app (instrumentation.ts: database, migrations, agent worker) on its
  // first request; make that request now rather than leave it to the first visitor.
  fetch(`http://127.0.0.1:${port}/api/health`).catch(() => {});
});

// Registered by the app with the live routes: hands running agent runs back to the queue and
// takes this server's viewers off the rooms' watching counts. A second signal, or a shutdown
// that takes longer than a few seconds, exits at once.
const SHUTDOWN = Symbol.for("parley.shutdown");
let stopping = false;
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, async () => {
    if (stopping) process.exit(1);
    stopping = true;
    server.close();
    const shutdown = globalThis[SHUTDOWN];
    if (typeof shutdown === "function") {
      const tooLong = new Promise((resolve) => setTimeout(resolve, 5000).unref());
      await Promise.race([shutdown().catch((error) => console.error("[parley] shutdown:", error)), tooLong]);
    }
    server.closeAllConnections();
    process.exit(0);
  });
}
