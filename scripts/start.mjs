#!/usr/bin/env node
// Starts Parley: builds it on first run, then serves it and opens the demo room.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { startNext } from "./next-start.mjs";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const next = path.join(root, "node_modules", ".bin", "next");
const port = process.env.PORT ?? "3000";

if (!fs.existsSync(path.join(root, ".next", "BUILD_ID")) || process.argv.includes("--rebuild")) {
  console.log("[parley] Building the app (first start only; `npm start -- --rebuild` rebuilds)…");
  const build = spawnSync(next, ["build"], { cwd: root, stdio: "inherit" });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

const server = startNext({ port });
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => server.kill(signal));
server.on("exit", (code) => process.exit(code ?? 0));

const demoUrl = `http://localhost:${port}/demo`;
const wantsBrowser = process.stdout.isTTY && !process.env.CI && process.env.PARLEY_OPEN !== "0";
async function openWhenReady() {
  for (let attempt = 0; attempt < 120; attempt++) {
    try {
      const response = await fetch(`http://localhost:${port}/api/health`);
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
