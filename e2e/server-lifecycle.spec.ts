import type { ChildProcess } from "node:child_process";
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
    .poll(async () => (await fetch(`${base}/api/health`).catch(() => null))?.status ?? 0, { timeout: 30_000, intervals: [200] })
    .toBe(200);
}

const watching = async (roomId: string) => {
  const { rooms } = (await (await fetch(`${base}/api/rooms`)).json()) as { rooms: { id: string; watching: number }[] };
  return rooms.find((room) => room.id === roomId)?.watching;
};

test("a server stopped with SIGTERM takes its viewers off the count before it exits", async () => {
  test.setTimeout(90_000);
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
