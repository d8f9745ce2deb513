#!/usr/bin/env node
// Takes the README's screenshots from a real run: starts the production build (building it if
// needed) on a fresh embedded database with the offline model, creates each room from the home
// page on a typed task (its creator seated, the team started at once), drives a Creative canvas, a
// Build review, a Brainstorm and a question to the room in Chromium, and writes public/screenshots/*.png.
// Usage: npm run screenshots   (Chromium from the system, or CHROMIUM_PATH)
import { execSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium } from "@playwright/test";
import { startNext } from "./next-start.mjs";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const out = path.join(root, "public", "screenshots");
const port = Number(process.env.SCREENSHOTS_PORT ?? 3291);
const base = `http://localhost:${port}`;
const token = "screenshots-admin-token-0123456789";

if (!fs.existsSync(path.join(root, ".next", "BUILD_ID"))) {
  const built = spawnSync(path.join(root, "node_modules", ".bin", "next"), ["build"], { cwd: root, stdio: "inherit" });
  if (built.status !== 0) process.exit(built.status ?? 1);
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-screenshots-"));
const server = startNext({
  port,
  stdio: "ignore",
  env: {
    ...process.env,
    DATABASE_URL: "",
    PARLEY_DATA_DIR: dataDir,
    ADMIN_TOKEN: token,
    PARLEY_DEMO_ROOM: "0",
    PARLEY_SCRIPT_PACE_MS: "25",
    PARLEY_SCRIPT_THINK_MS: "300",
  },
});

async function api(method, url, body, headers = {}) {
  const response = await fetch(`${base}${url}`, {
    method,
    headers: { "content-type": "application/json", ...headers },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${await response.text()}`);
  return response.json();
}

async function ready() {
  for (let tries = 0; tries < 120; tries++) {
    try {
      if ((await fetch(`${base}/api/health`)).ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error("The server did not start.");
}

const configure = (roomId, settings) => api("PATCH", `/api/admin/rooms/${roomId}`, { settings }, { authorization: `Bearer ${token}` });

function chromiumPath() {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  return execSync("which chromium || which chromium-browser", { encoding: "utf8" }).trim().split("\n")[0];
}

/** Creates a room from the home page as a person would: the task typed, the template chosen, a name to take a seat. */
async function createFromHome(browser, task, template, { start = true } = {}) {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  await page.goto(base);
  await page.getByTestId("room-task-input").fill(task);
  await page.getByTestId("room-template").selectOption(template);
  await page.getByTestId("room-creator-name").fill("Ada");
  if (!start) await page.getByTestId("room-start-now").uncheck();
  await page.getByTestId("create-room").click();
  await page.waitForURL(/\/rooms\//);
  await page.getByTestId("connection-status").and(page.locator('[data-state="live"]')).waitFor();
  return { page, roomId: page.url().split("/rooms/")[1] };
}

const shot = async (page, file) => {
  await page.screenshot({ path: path.join(out, file) });
  console.log(`wrote public/screenshots/${file}`);
};

async function main() {
  await ready();
  const browser = await chromium.launch({
    executablePath: chromiumPath(),
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-quic",
      "--no-first-run",
    ],
  });
  try {
    const home = await browser.newPage({ viewport: { width: 1440, height: 900 } });

    // A Creative canvas room made on a typed task; its team started at once, a turn every few seconds.
    const { page: canvas, roomId: canvasRoom } = await createFromHome(browser, "A lullaby for a lighthouse keeper", "creative-canvas");
    await configure(canvasRoom, { scheduler_interval_seconds: 6 });
    await canvas.waitForTimeout(75_000);
    await canvas.getByTestId("tidy-canvas").click();
    await canvas.waitForTimeout(1500);
    await canvas.locator(".react-flow__controls-fitview").click();
    await canvas.waitForTimeout(800);
    await shot(canvas, "room.png");

    // A build review, from the typed task to approval.
    const { page: review } = await createFromHome(
      browser,
      "Write a Python function word_count(s) that returns how many words s has",
      "build-review",
    );
    await review.getByTestId("review-status").filter({ hasText: "Approved" }).waitFor({ timeout: 120_000 });
    await review.locator(".react-flow__controls-fitview").click();
    await review.waitForTimeout(800);
    await shot(review, "build-review.png");

    // A brainstorm, at the gate.
    const { page: brainstorm } = await createFromHome(browser, "Reduce food waste in our office cafeteria", "brainstorm");
    await brainstorm.getByTestId("stage-gate").and(brainstorm.locator('[data-status="awaiting"]')).waitFor({ timeout: 180_000 });
    await brainstorm.locator(".react-flow__controls-fitview").click();
    await brainstorm.waitForTimeout(800);
    await shot(brainstorm, "brainstorm.png");

    // A question to the people in the room: its creator sends the agents' questions to the people here.
    const { page: ask, roomId: askRoom } = await createFromHome(browser, "A sea shanty about the harbour at night", "creative-canvas", {
      start: false,
    });
    await configure(askRoom, { broadcast_sensitivity: "high", broadcast_timeout: 120 });
    await ask.getByTestId("question-mode").selectOption("human");
    await ask.getByTestId("start-team").click();
    await ask.getByTestId("human-question").waitFor({ timeout: 60_000 });
    await ask.waitForTimeout(1500);
    await shot(ask, "ask-the-room.png");

    await home.goto(base);
    await home.waitForTimeout(500);
    await shot(home, "home.png");
  } finally {
    await browser.close();
  }
}

main()
  .catch((error) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(() => {
    server.kill("SIGTERM");
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
