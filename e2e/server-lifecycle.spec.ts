import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { startNext } from "../scripts/next-start.mjs";

// A server of its own (not the suite's shared one), stopped and started again on the same data.
const PORT = Number(process.env.E2E_PORT ?? 3210) + 2;
const base = `http://127.0.0.1:${PORT}`;

function startServer(dataDir: string): ChildProcess {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PARLEY_DATA_DIR: dataDir,
    PARLEY_DEMO_ROOM: "0",
    ADMIN_TOKEN: "lifecycle-admin-token-0123456789",
    PORT: String(PORT),
  };
  delete env.DATABASE_URL;
  return startNext({ port: PORT, env, stdio: "ignore" });
}

async function untilUp() {
  await expect
    .poll(async () => (await fetch(`${base}/api/health`).catch(() => null))?.status ?? 0, { timeout: 60_000, intervals: [200] })
    .toBe(200);
}

const watching = async (roomId: string) => {
  const { rooms } = (await (await fetch(`${base}/api/rooms`)).json()) as { rooms: { id: string; watching: number }[] };
  return rooms.find((room) => room.id === roomId)?.watching;
};

test("a server stopped with SIGTERM takes its viewers off the count before it exits", async () => {
  test.setTimeout(150_000);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-lifecycle-"));
  let server = startServer(dataDir);
  try {
    await untilUp();
    const created = await fetch(`${base}/api/rooms`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ title: "Lifecycle", template: "creative-canvas" }),
    });
    const roomId = ((await created.json()) as { room: { id: string } }).room.id;
    // A viewer on a live connection.
    const viewer = http.get(`${base}/api/rooms/${roomId}/events`, (response) => response.resume());
    viewer.on("error", () => {});
    await expect.poll(() => watching(roomId), { timeout: 10_000 }).toBe(1);

    const exited = new Promise<number | null>((resolve) => server.once("exit", (code) => resolve(code)));
    server.kill("SIGTERM");
    expect(await exited).toBe(0);

    // Started again on the same data: nobody is watching, at once (not after the stale window).
    server = startServer(dataDir);
    await untilUp();
    expect(await watching(roomId)).toBe(0);
  } finally {
    server.kill("SIGKILL");
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

// `npm start` itself (scripts/start.mjs), on a port of its own.
const START_PORT = PORT + 2;
const root = path.resolve(import.meta.dirname, "..");

interface Started {
  process: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output: () => string;
}

function npmStart(dataDir: string, env: Record<string, string | undefined> = {}): Started {
  const merged: NodeJS.ProcessEnv = {
    ...process.env,
    PARLEY_DATA_DIR: dataDir,
    PARLEY_DEMO_ROOM: "0",
    PARLEY_OPEN: "0",
    ADMIN_TOKEN: "lifecycle-admin-token-0123456789",
    PORT: String(START_PORT),
    ...env,
  };
  delete merged.DATABASE_URL;
  if (!("HOST" in env)) delete merged.HOST;
  const child = spawn(process.execPath, [path.join(root, "scripts", "start.mjs")], {
    cwd: root,
    env: merged,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  return { process: child, exited, output: () => output };
}

const startBase = `http://127.0.0.1:${START_PORT}`;
const healthAt = async (base: string) => (await fetch(`${base}/api/health`).catch(() => null))?.status ?? 0;

test("npm start is the server: killed, it dies by that signal and leaves nothing behind, and starts again at once on its data", async () => {
  test.setTimeout(120_000);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-start-"));
  let started = npmStart(dataDir);
  try {
    await expect.poll(() => healthAt(startBase), { timeout: 60_000, intervals: [200] }).toBe(200);
    started.process.kill("SIGKILL");
    // A supervisor sees the kill, not a clean exit.
    expect(await started.exited).toEqual({ code: null, signal: "SIGKILL" });
    // Nothing is left serving the port (or holding the embedded database).
    expect(await healthAt(startBase)).toBe(0);

    // Right after the kill -9, on the same data: the dead server's lock is no obstacle.
    started = npmStart(dataDir);
    await expect.poll(() => healthAt(startBase), { timeout: 60_000, intervals: [200] }).toBe(200);
    // Stopped as a supervisor stops it: a clean stop, code 0.
    started.process.kill("SIGTERM");
    expect(await started.exited).toEqual({ code: 0, signal: null });
  } finally {
    started.process.kill("SIGKILL");
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test("npm start exits with the server's own code: a second server on the same embedded data is refused with 1", async () => {
  test.setTimeout(120_000);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-start-"));
  const first = npmStart(dataDir);
  let second: Started | null = null;
  try {
    await expect.poll(() => healthAt(startBase), { timeout: 60_000, intervals: [200] }).toBe(200);
    second = npmStart(dataDir, { PORT: String(START_PORT + 1) });
    // Asked something now and then, in case it opens the database only when first asked.
    const poke = setInterval(() => void healthAt(`http://127.0.0.1:${START_PORT + 1}`), 500);
    try {
      expect(await second.exited).toEqual({ code: 1, signal: null });
    } finally {
      clearInterval(poke);
    }
    expect(second.output()).toContain("already in use by another Parley process");
    expect(await healthAt(startBase)).toBe(200);
  } finally {
    first.process.kill("SIGKILL");
    second?.process.kill("SIGKILL");
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

/**
 * Another address of this machine than the one `npm start` binds by default: Linux routes all of
 * 127.0.0.0/8 to the loopback interface, so a server bound to 127.0.0.1 alone is not reachable on
 * 127.0.0.2, and one bound to every interface is.
 */
const otherAddress = "127.0.0.2";

/** GET /api/health at 127.0.0.1 with a request that names `hostName` as its host (status 0: no answer). */
const healthAsHost = (hostName: string) =>
  new Promise<{ status: number; body: string }>((resolve) => {
    const request = http.get(
      { host: "127.0.0.1", port: START_PORT, path: "/api/health", headers: { host: `${hostName}:${START_PORT}` } },
      (response) => {
        let body = "";
        response.on("data", (chunk) => (body += chunk));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    request.on("error", () => resolve({ status: 0, body: "" }));
  });

test("npm start listens on this machine only unless HOST says otherwise, and answers only host names it is told", async () => {
  test.setTimeout(120_000);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-start-"));
  let started = npmStart(dataDir);
  try {
    await expect.poll(() => healthAt(startBase), { timeout: 60_000, intervals: [200] }).toBe(200);
    const other = `http://${otherAddress}:${START_PORT}`;
    expect(await healthAt(other)).toBe(0);
    started.process.kill("SIGTERM");
    await started.exited;

    // On every interface, as in a container: reachable on any address, but only under a name it answers to.
    started = npmStart(dataDir, { HOST: "0.0.0.0" });
    await expect.poll(() => healthAt(other), { timeout: 60_000, intervals: [200] }).toBe(200);
    const refused = await healthAsHost("parley.example");
    expect(refused.status).toBe(421);
    expect(JSON.parse(refused.body)).toMatchObject({ error: { code: "misdirected_request" } });
    started.process.kill("SIGTERM");
    await started.exited;

    started = npmStart(dataDir, { HOST: "0.0.0.0", PARLEY_ALLOWED_HOSTS: "parley.example" });
    await expect.poll(async () => (await healthAsHost("parley.example")).status, { timeout: 60_000, intervals: [200] }).toBe(200);
    expect((await healthAsHost("elsewhere.example")).status).toBe(421);
  } finally {
    started.process.kill("SIGKILL");
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test("npm start stops its server when npm itself is killed", async () => {
  test.setTimeout(120_000);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-start-"));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PARLEY_DATA_DIR: dataDir,
    PARLEY_DEMO_ROOM: "0",
    PARLEY_OPEN: "0",
    ADMIN_TOKEN: "lifecycle-admin-token-0123456789",
    PORT: String(START_PORT),
  };
  delete env.DATABASE_URL;
  delete env.HOST;
  const npm = spawn("npm", ["start", "--silent"], { cwd: root, env, stdio: "ignore" });
  try {
    await expect.poll(() => healthAt(startBase), { timeout: 60_000, intervals: [200] }).toBe(200);
    npm.kill("SIGKILL");
    // No server is left behind holding the port.
    await expect.poll(() => healthAt(startBase), { timeout: 15_000, intervals: [200] }).toBe(0);
  } finally {
    npm.kill("SIGKILL");
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
