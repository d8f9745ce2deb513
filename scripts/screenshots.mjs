#!/usr/bin/env node
// Takes the README's screenshots from a real run: starts the production build (building it if
// needed) on a fresh embedded database with the offline model, drives a Creative canvas, a Build
// review, a Brainstorm and a question to the room in Chromium, and writes public/screenshots/*.png.
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

const createRoom = async (title, template) => (await api("POST", "/api/rooms", { title, template })).room.id;
const configure = (roomId, settings) => api("PATCH", `/api/admin/rooms/${roomId}`, { settings }, { authorization: `Bearer ${token}` });

function chromiumPath() {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  return execSync("which chromium || which chromium-browser", { encoding: "utf8" }).trim().split("\n")[0];
}

async function open(browser, roomId, name) {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  await page.goto(`${base}/rooms/${roomId}`);
  await page.getByTestId("connection-status").and(page.locator('[data-state="live"]')).waitFor();
  if (name) {
    await page.getByTestId("display-name-input").fill(name);
    await page.getByTestId("take-seat").click();
    await page.getByTestId("seat-name").waitFor();
  }
  return page;
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

    // A Creative canvas room where the scheduler gives every persona a turn.
    const canvasRoom = await createRoom("Rain on the harbour", "creative-canvas");
    await configure(canvasRoom, {
      scheduler_enabled: true,
      scheduler_interval_seconds: 6,
      task: "A song about rain on the harbour at night",
    });
    const canvas = await open(browser, canvasRoom, "Ada");
    await canvas.waitForTimeout(75_000);
    await canvas.getByTestId("tidy-canvas").click();
    await canvas.waitForTimeout(1500);
    await canvas.locator(".react-flow__controls-fitview").click();
    await canvas.waitForTimeout(800);
    await shot(canvas, "room.png");

    // A build review, from the typed task to approval.
    const reviewRoom = await createRoom("Word counter", "build-review");
    const review = await open(browser, reviewRoom, "Ada");
    await review.getByTestId("review-task").fill("Write a function that counts the words in a sentence");
    await review.getByTestId("review-start").click();
    await review.getByTestId("review-status").filter({ hasText: "Approved" }).waitFor({ timeout: 120_000 });
    await review.locator(".react-flow__controls-fitview").click();
    await review.waitForTimeout(800);
    await shot(review, "build-review.png");

    // A brainstorm, at the gate.
    const brainstormRoom = await createRoom("Onboarding", "brainstorm");
    const brainstorm = await open(browser, brainstormRoom, "Ada");
    await brainstorm.getByTestId("brainstorm-problem").fill("How might we cut onboarding time for new engineers?");
    await brainstorm.getByTestId("brainstorm-start").click();
    await brainstorm.getByTestId("stage-gate").and(brainstorm.locator('[data-status="awaiting"]')).waitFor({ timeout: 180_000 });
    await brainstorm.locator(".react-flow__controls-fitview").click();
    await brainstorm.waitForTimeout(800);
    await shot(brainstorm, "brainstorm.png");

    // A question to the people in the room.
    const askRoom = await createRoom("Lighthouse", "creative-canvas");
    await configure(askRoom, { broadcast: "human", broadcast_sensitivity: "high", broadcast_timeout: 120 });
    const ask = await open(browser, askRoom, "Ada");
    await ask.getByTestId("agent-songwriter").getByTestId("agent-start").click();
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
