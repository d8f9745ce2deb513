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

// Run by `npm start`, npm (and the shell it runs this in) is the process a supervisor watches, and
// it cannot pass a kill -9 on: once npm is gone, the server stops as if told to (SIGTERM).
if (process.env.npm_lifecycle_event) {
  const npm = npmProcess();
  // A process whose parent ends is handed to another at once, even before the parent is reaped.
  const shell = npm === process.ppid ? null : process.ppid;
  if (npm) {
    setInterval(() => {
      const stillUnderNpm = shell === null ? process.ppid === npm : processInfo(shell)?.parent === npm;
      if (!stillUnderNpm) process.kill(process.pid, "SIGTERM");
    }, 500).unref();
  }
}

/** A process's parent and command line (Linux's /proc, or `ps` elsewhere); null once it is gone. */
function processInfo(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    return { parent, command: fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ") };
  } catch {
    const ps = spawnSync("ps", ["-o", "ppid=,command=", "-p", String(pid)], { encoding: "utf8" });
    const match = ps.status === 0 ? ps.stdout.trim().match(/^(\d+)\s+(.*)$/) : null;
    return match ? { parent: Number(match[1]), command: match[2] } : null;
  }
}

/** The npm process that ran this one: the parent, or the parent of the shell npm ran it in. */
function npmProcess() {
  const parent = processInfo(process.ppid);
  if (!parent) return null;
  if (/\bnpm\b|npm-cli/.test(parent.command)) return process.ppid;
  const grandparent = /^\S*\bsh\s+-c\b/.test(parent.command) ? processInfo(parent.parent) : null;
  return grandparent && /\bnpm\b|npm-cli/.test(grandparent.command) ? parent.parent : null;
}

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
