// Starts `next start` on the production build, as `npm start`, the end-to-end tests and the
// benchmarks run Parley. Parley handles SIGINT and SIGTERM itself (it hands running agent runs
// back to the queue and takes its viewers off the rooms' counts before it exits), so Next.js is
// told to leave the signals alone.
import { spawn } from "node:child_process";
import path from "node:path";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");

/** See next-start.d.mts for the options. */
export function startNext({ port, env = process.env, stdio = "inherit", nodeArgs = [] }) {
  const next = path.join(root, "node_modules", "next", "dist", "bin", "next");
  // Every request carries the address it came from, for Parley's limits per client address.
  const peerAddress = path.join(root, "scripts", "peer-address.mjs");
  return spawn(process.execPath, ["--import", peerAddress, ...nodeArgs, next, "start", "-p", String(port)], {
    cwd: root,
    stdio,
    env: { ...env, NODE_ENV: "production", PORT: String(port), NEXT_MANUAL_SIG_HANDLE: "true" },
  });
}
