#!/usr/bin/env node
// Starts Parley: builds it on first run, then serves it in this process and opens the demo room.
// The server is this process, not a child of it: a supervisor sees the server's own exit code or
// the signal that killed it, and killing this process leaves no server behind holding the port
// and the embedded database.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { listenHost, serveNextHere } from "./next-start.mjs";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const next = path.join(root, "node_modules", ".bin", "next");
const port = process.env.PORT ?? "3000";

if (!fs.existsSync(path.join(root, ".next", "BUILD_ID")) || process.argv.includes("--rebuild")) {
  console.log("[parley] Building the app (first start only; `npm start -- --rebuild` rebuilds)…");
  const build = spawnSync(next, ["build"], { cwd: root, stdio: "inherit" });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

// Where this machine reaches the server: every interface and loopback are reached as localhost.
const host = listenHost();
const local = ["0.0.0.0", "::", "127.0.0.1", "::1", "localhost"].includes(host);
const base = `http://${local ? "localhost" : host.includes(":") ? `[${host}]` : host}:${port}`;

await serveNextHere({ port });

// Where people reach it, when that is said; else where this machine does.
const demoUrl = `${process.env.PARLEY_PUBLIC_URL?.replace(/\/+$/, "") ?? base}/demo`;
const wantsBrowser = process.stdout.isTTY && !process.env.CI && process.env.PARLEY_OPEN !== "0";
async function openWhenReady() {
  for (let attempt = 0; attempt < 120; attempt++) {
    try {
      const response = await fetch(`${base}/api/health`);
      if (response.ok) break;
    } catch {
      // not up yet
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  console.log(`[parley] Ready: ${demoUrl}`);
  if (!wantsBrowser) return;
  const opener = process.platform === "darwin" ? "open" : process.platform === "win32" ? "start" : "xdg-open";
  spawn(opener, [demoUrl], { stdio: "ignore", detached: true, shell: process.platform === "win32" })
    .on("error", () => {})
    .unref();
}
void openWhenReady();
