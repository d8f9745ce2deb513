// Starts `next start` on the production build, as `npm start`, the end-to-end tests and the
// benchmarks run Parley: in a process of its own (`startNext`) or in the calling one
// (`serveNextHere`). Parley handles SIGINT and SIGTERM itself (it hands running agent runs back
// to the queue and takes its viewers off the rooms' counts before it exits), so Next.js is told to
// leave the signals alone.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");

/** The interface the server listens on: `HOST`, else this machine only. */
export function listenHost(env = process.env) {
  return env.HOST || "127.0.0.1";
}

/** See next-start.d.mts for the options. */
export function startNext({ port, env = process.env, stdio = "inherit", nodeArgs = [] }) {
  const next = path.join(root, "node_modules", "next", "dist", "bin", "next");
  // Every request carries the address it came from, for Parley's limits per client address.
  const preload = path.join(root, "scripts", "server-preload.mjs");
  return spawn(process.execPath, ["--import", preload, ...nodeArgs, next, "start", "-p", String(port), "-H", listenHost(env)], {
    cwd: root,
    stdio,
    env: { ...env, NODE_ENV: "production", PORT: String(port), NEXT_MANUAL_SIG_HANDLE: "true" },
  });
}

/**
 * Serves the production build in this very process, as `npm start` does: the process a supervisor
 * watches is the server itself, so it exits with the server's own code (or dies by the signal
 * that stopped it), and nothing is left running when it is killed.
 */
export async function serveNextHere({ port }) {
  Object.assign(process.env, { NODE_ENV: "production", PORT: String(port), NEXT_MANUAL_SIG_HANDLE: "true" });
  // Before Next.js creates its HTTP server, which the preload wraps.
  await import("./server-preload.mjs");
  const next = path.join(root, "node_modules", "next", "dist", "bin", "next");
  process.argv = [process.execPath, next, "start", "-p", String(port), "-H", listenHost()];
  process.chdir(root);
  createRequire(import.meta.url)(next);
}
