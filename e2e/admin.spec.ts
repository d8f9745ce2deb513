import { createHmac } from "node:crypto";
import type { Page } from "@playwright/test";
import { E2E_ADMIN_TOKEN } from "./support/constants";
import { expect, test } from "./support/fixtures";
import { configureRoom, createRoomViaApi } from "./support/room-page";
import { watchViolations } from "./support/watch-violations";

async function signIn(page: Page) {
  await page.goto("/admin");
  await page.getByTestId("admin-token-input").fill(E2E_ADMIN_TOKEN);
  await page.getByTestId("admin-sign-in-submit").click();
  await expect(page.getByTestId("admin-overview")).toBeVisible();
}

/** Takes a seat in the room and starts one of its agents, as a participant's page does; answers the run's id. */
async function startAgentViaApi(baseURL: string, roomId: string, agentName: string): Promise<string> {
  const json = { "content-type": "application/json" };
  const seat = await fetch(`${baseURL}/api/rooms/${roomId}/seat`, {
    method: "POST",
    headers: json,
    body: JSON.stringify({ displayName: "Starter" }),
  });
  expect(seat.status).toBe(201);
  const cookie = seat.headers.get("set-cookie")!.split(";")[0]!;
  const room = (await (await fetch(`${baseURL}/api/rooms/${roomId}`)).json()) as { agents: { id: string; name: string }[] };
  const agent = room.agents.find((each) => each.name === agentName)!;
  const started = await fetch(`${baseURL}/api/rooms/${roomId}/runs`, {
    method: "POST",
    headers: { ...json, cookie },
    body: JSON.stringify({ agentId: agent.id, prompt: "Add one line to the canvas." }),
  });
  expect(started.status).toBe(201);
  return ((await started.json()) as { run: { id: string } }).run.id;
}

/** Nothing on the page is wider than the screen: no sideways scrolling at phone width. */
async function expectNoSidewaysScroll(page: Page) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
}

test("an admin sees a run appear live, opens its steps and cancels it; the charts show what was spent", async ({
  browser,
  openRoom,
  baseURL,
}, testInfo) => {
  const roomId = await createRoomViaApi(baseURL!, "Watched from the dashboard");
  // The Songwriter will ask the people in the room and wait for their answer: a run that stays
  // under way until it is stopped.
  await configureRoom(baseURL!, roomId, { broadcast: "human", broadcast_sensitivity: "high", broadcast_timeout: 300 });
  const context = await browser.newContext();
  const page = await context.newPage();
  // Every dashboard page this test opens works under the security policy, with nothing logged as an error.
  const violations = await watchViolations(page);
  await signIn(page);
  await page.getByTestId("admin-nav").getByRole("link", { name: "Runs" }).click();
  await expect(page.getByTestId("admin-runs")).toBeVisible();

  // A participant starts the Songwriter; the run shows up in the admin's list on its own.
  const room = await openRoom(roomId, { name: "Ada" });
  await room.page.getByTestId("agent-songwriter").getByTestId("agent-prompt").click();
  await room.page.getByTestId("agent-prompt-input").fill("Write a verse about the harbour at night.");
  await room.page.getByTestId("agent-prompt-start").click();
  const row = page.getByTestId("run-row").filter({ hasText: "Watched from the dashboard" });
  await expect(row).toHaveCount(1, { timeout: 10_000 });
  await expect(row).toContainText("Songwriter");

  // Its steps appear as they are taken, with their tool calls.
  await row.getByTestId("run-open").click();
  const run = page.getByTestId("admin-run");
  await expect(run).toBeVisible();
  await expect(page.getByTestId("run-step").first()).toBeVisible({ timeout: 20_000 });
  await expect(page.getByTestId("run-step").first()).toContainText(/Step 1.*attempt 1/);
  // What the step's model was given, in brief: the run's first step reads the opening.
  await expect(page.getByTestId("run-step").first().getByTestId("run-step-prompt")).toContainText(
    /\d+ messages · [\d,]+ characters .* new: the opening/,
  );
  await expect(page.getByTestId("run-tool-call").first()).toBeVisible();
  await expect(room.page.getByTestId("agent-songwriter").getByTestId("agent-status")).toHaveText("asking the room", { timeout: 15_000 });
  await expect(run).toHaveAttribute("data-status", "running");
  await page.screenshot({ path: testInfo.outputPath("admin-run-1440.png"), fullPage: true });

  await page.getByTestId("run-cancel").click();
  await expect(run).toHaveAttribute("data-status", "cancelled", { timeout: 15_000 });
  await expect(page.getByTestId("run-error")).toContainText("Cancelled");
  // The room sees who stopped it.
  await expect(room.page.getByTestId("agent-songwriter").getByTestId("agent-status")).toHaveText("idle", { timeout: 10_000 });
  await expect(room.page.getByTestId("feed-entry").filter({ hasText: "stopped Songwriter's run" })).toBeVisible();

  // Its workflow, found by its correlation id, as a timeline.
  await page.getByTestId("run-workflow").click();
  const workflow = page.getByTestId("admin-workflow");
  await expect(workflow.getByTestId("trace-summary")).toContainText("1 run");
  await expect(workflow.getByTestId("trace-message").first()).toHaveAttribute("data-type", "run.queued");
  await expect(workflow.locator('[data-testid="trace-message"][data-type="admin.action"]')).toContainText("stopped Songwriter's run");
  await page.screenshot({ path: testInfo.outputPath("admin-workflow-1440.png"), fullPage: true });

  // The overview charts what the run's model calls spent.
  await page.getByTestId("admin-nav").getByRole("link", { name: "Overview" }).click();
  const tokens = page.getByTestId("usage-chart-tokens");
  await expect(tokens.locator(".recharts-bar-rectangle").first()).toBeVisible();
  await expect(tokens.locator(".recharts-legend-item")).toContainText(["script:songwriter"]);
  await page.getByTestId("by-agent").click();
  await expect(tokens.locator(".recharts-legend-item")).toContainText(["Songwriter"]);
  await expect(page.getByTestId("usage-chart-cost")).toContainText("Nothing was billed");
  await expect(page.getByTestId("stat-failed")).toBeVisible();
  await page.screenshot({ path: testInfo.outputPath("admin-overview-1440.png"), fullPage: true });

  // The stop is in the audit trail.
  await page.getByTestId("admin-nav").getByRole("link", { name: "Audit" }).click();
  await expect(page.getByTestId("audit-row").filter({ hasText: "Stopped Songwriter's run" })).toHaveAttribute(
    "data-action",
    "run.cancelled",
  );
  expect(violations).toEqual({ csp: [], errors: [] });
  await context.close();
});

test("an admin switches an agent's model, rewrites another's system prompt and reads both in the room's log; every section fits a phone", async ({
  browser,
  baseURL,
}, testInfo) => {
  const roomId = await createRoomViaApi(baseURL!, "Tuned from the dashboard");
  const context = await browser.newContext();
  const page = await context.newPage();
  const violations = await watchViolations(page);
  await signIn(page);

  await page.goto(`/admin/rooms/${roomId}`);
  const painter = page.locator('[data-testid="agent-editor"][data-agent-name="Scene Painter"]');
  await expect(painter.getByTestId("agent-provider")).toHaveText("provider configured");
  await painter.getByTestId("agent-model").fill("openai:gpt-5");
  await painter.getByTestId("agent-save").click();
  await expect(page.getByRole("status")).toContainText("Scene Painter now uses openai:gpt-5, which cannot run here yet");
  await expect(painter.getByTestId("agent-provider")).toContainText("cannot run: OPENAI_API_KEY is not set");

  // The change is in the room's own log.
  const log = page.getByTestId("event-log");
  await log.getByTestId("event-type-filter").selectOption("agent.updated");
  await expect(log.getByTestId("event-row")).toHaveCount(1);
  await expect(log.getByTestId("event-row")).toContainText("switched Scene Painter from script:scene-painter to openai:gpt-5");
  await expect(log.getByTestId("event-export")).toHaveAttribute("href", `/api/admin/rooms/${roomId}/events/export?type=agent.updated`);
  await page.screenshot({ path: testInfo.outputPath("admin-room-1440.png"), fullPage: true });

  // The Storyteller's system prompt, rewritten: saved, in the log, and what the page shows from then on.
  const storyteller = page.locator('[data-testid="agent-editor"][data-agent-name="Storyteller"]');
  const prompt = storyteller.getByLabel("Storyteller's system prompt");
  await expect(prompt).not.toHaveValue("");
  await expect(storyteller.getByTestId("agent-save")).toBeDisabled();
  const rewritten = "You tell short stories about lighthouses, three sentences at most, and end each with a question.";
  await prompt.fill(rewritten);
  await storyteller.getByTestId("agent-save").click();
  await expect(page.getByRole("status")).toHaveText("Saved Storyteller.");
  await expect(log.getByTestId("event-row")).toHaveCount(2);
  await expect(log.getByTestId("event-row").filter({ hasText: "changed Storyteller's system prompt" })).toHaveCount(1);
  await page.reload();
  await expect(prompt).toHaveValue(rewritten);
  await expect(storyteller.getByTestId("agent-save")).toBeDisabled();

  // The room itself, opened from here: its canvas (React Flow) live under the policy.
  await page.getByRole("link", { name: "Open the room" }).click();
  await expect(page).toHaveURL(new RegExp(`/rooms/${roomId}$`));
  await expect(page.locator(".react-flow__renderer")).toBeVisible();
  await expect(page.getByTestId("connection-status")).toHaveAttribute("data-state", "live");
  await page.goBack();
  await expect(page.getByTestId("admin-room-detail")).toBeVisible();

  await page.getByTestId("admin-nav").getByRole("link", { name: "Instance" }).click();
  await expect(page.getByTestId("instance-database")).toContainText("PGlite");
  await expect(page.getByTestId("instance-scheduler")).toContainText("Held by");
  await expect(page.getByTestId("instance-providers")).toContainText("openai");
  await page.screenshot({ path: testInfo.outputPath("admin-instance-1440.png"), fullPage: true });

  await page.getByTestId("admin-nav").getByRole("link", { name: "Rooms" }).click();
  await expect(page.getByTestId("admin-room").filter({ hasText: "Tuned from the dashboard" })).toContainText("openai:gpt-5");
  await page.screenshot({ path: testInfo.outputPath("admin-rooms-1440.png"), fullPage: true });

  // Both changes are in the audit trail, under the room.
  await page.getByTestId("admin-nav").getByRole("link", { name: "Audit" }).click();
  const changes = page.getByTestId("audit-row").filter({ hasText: "Tuned from the dashboard" });
  await expect(changes.filter({ hasText: "changed Storyteller's system prompt" })).toHaveAttribute("data-action", "agent.updated");
  await expect(changes.filter({ hasText: "switched Scene Painter" })).toHaveAttribute("data-action", "agent.updated");

  // At phone width every section fits the screen.
  await page.setViewportSize({ width: 390, height: 844 });
  for (const [path, testId] of [
    ["/admin", "admin-overview"],
    ["/admin/runs", "admin-runs"],
    ["/admin/workflows", "admin-workflows"],
    ["/admin/rooms", "admin-rooms"],
    [`/admin/rooms/${roomId}`, "admin-room-detail"],
    ["/admin/instance", "admin-instance"],
    ["/admin/audit", "admin-audit"],
  ] as const) {
    await page.goto(path);
    await expect(page.getByTestId(testId)).toBeVisible();
    await expectNoSidewaysScroll(page);
    await page.screenshot({ path: testInfo.outputPath(`admin-${testId}-390.png`), fullPage: true });
  }
  expect(violations).toEqual({ csp: [], errors: [] });
  await context.close();
});

test("an admin narrows the runs list by status, by room and by agent, in one room or every room", async ({ browser, baseURL }) => {
  const admin = { authorization: `Bearer ${E2E_ADMIN_TOKEN}` };
  const rooms = {
    harbour: await createRoomViaApi(baseURL!, "Filtered harbour"),
    lighthouse: await createRoomViaApi(baseURL!, "Filtered lighthouse"),
  };
  // Songwriters work in both rooms (and may ask others in); the harbour's Storyteller is stopped before it starts.
  await startAgentViaApi(baseURL!, rooms.harbour, "Songwriter");
  await startAgentViaApi(baseURL!, rooms.lighthouse, "Songwriter");
  const stopped = await startAgentViaApi(baseURL!, rooms.harbour, "Storyteller");
  expect((await fetch(`${baseURL}/api/admin/runs/${stopped}/cancel`, { method: "POST", headers: admin })).status).toBe(200);
  // Once every run of both rooms has ended, what each filter should show is known from the rooms' runs.
  type Run = { status: string; agentName: string; roomTitle: string };
  const runsOf = async (roomId: string) =>
    ((await (await fetch(`${baseURL}/api/admin/runs?room=${roomId}&limit=100`, { headers: admin })).json()) as { runs: Run[] }).runs;
  let all: Run[] = [];
  await expect
    .poll(
      async () => {
        all = [...(await runsOf(rooms.harbour)), ...(await runsOf(rooms.lighthouse))];
        return all.filter((run) => run.status === "queued" || run.status === "running").length;
      },
      { timeout: 30_000 },
    )
    .toBe(0);
  const described = (runs: Run[]) => runs.map((run) => `${run.status} ${run.agentName} · ${run.roomTitle}`).sort();
  expect(described(all)).toEqual(
    expect.arrayContaining([
      "succeeded Songwriter · Filtered harbour",
      "succeeded Songwriter · Filtered lighthouse",
      "cancelled Storyteller · Filtered harbour",
    ]),
  );

  const context = await browser.newContext();
  const page = await context.newPage();
  const violations = await watchViolations(page);
  await signIn(page);
  await page.goto("/admin/runs");
  // This test's runs, the newest in the list, as the rows describe them.
  const ours = page.getByTestId("run-row").filter({ hasText: /Filtered (harbour|lighthouse)/ });
  const rowsAre = (expected: Run[]) =>
    expect
      .poll(async () =>
        (
          await ours.evaluateAll((rows) =>
            rows.map(
              (row) =>
                `${row.getAttribute("data-status")} ${row.querySelector('[data-testid="run-open"]')?.textContent} · ${row.querySelector("button")?.textContent}`,
            ),
          )
        ).sort(),
      )
      .toEqual(described(expected));
  await rowsAre(all);

  // By status: only what was cancelled, and every row shown is cancelled.
  await page.getByTestId("status-filter").selectOption("cancelled");
  await expect(page).toHaveURL(/status=cancelled/);
  await rowsAre(all.filter((run) => run.status === "cancelled"));
  await expect(page.getByTestId("run-row").and(page.locator(':not([data-status="cancelled"])'))).toHaveCount(0);
  await page.getByTestId("status-filter").selectOption("");

  // By room, picked by typing its title: the harbour's runs and no others.
  await page.getByTestId("room-picker").fill("Filtered harb");
  await page.locator(".admin-picker__list").getByRole("button", { name: "Filtered harbour" }).click();
  await expect(page.getByTestId("room-filter")).toContainText("Filtered harbour");
  const inHarbour = all.filter((run) => run.roomTitle === "Filtered harbour");
  await rowsAre(inHarbour);
  await expect(page.getByTestId("run-row")).toHaveCount(inHarbour.length);

  // And by one of its agents, picked among the room's own: the harbour's Songwriter alone.
  await page.getByTestId("agent-picker").fill("Song");
  await page
    .locator(".admin-picker__list")
    .getByRole("button", { name: /^Songwriter/ })
    .click();
  await expect(page.getByTestId("agent-filter")).toContainText("Songwriter");
  const harbourSongwriter = inHarbour.filter((run) => run.agentName === "Songwriter");
  await rowsAre(harbourSongwriter);
  await expect(page.getByTestId("run-row")).toHaveCount(harbourSongwriter.length);
  // The filters are in the address: read again, the page shows the same.
  await page.reload();
  await expect(page.getByTestId("room-filter")).toContainText("Filtered harbour");
  await rowsAre(harbourSongwriter);

  // Every room's Songwriter: the name across the instance, without the room.
  await page.getByRole("button", { name: "Any room" }).click();
  await page.getByRole("button", { name: "Any agent" }).click();
  await page.getByTestId("agent-picker").fill("Songwriter");
  await page.locator(".admin-picker__list").getByRole("button", { name: "Songwriter (every room)" }).click();
  await expect(page.getByTestId("agent-filter")).toContainText("Songwriter (every room)");
  await rowsAre(all.filter((run) => run.agentName === "Songwriter"));
  await expect(page.getByTestId("run-row").filter({ hasNotText: "Songwriter" })).toHaveCount(0);
  expect(violations).toEqual({ csp: [], errors: [] });
  await context.close();
});

test("a session cookie made from the admin token without signing in shows the sign-in form; the one signing in sets opens the dashboard", async ({
  browser,
  baseURL,
}) => {
  const context = await browser.newContext();
  const madeFromToken = createHmac("sha256", E2E_ADMIN_TOKEN).update("parley-admin-session-v1").digest("base64url");
  await context.addCookies([{ name: "parley_admin", value: madeFromToken, url: baseURL! }]);
  const page = await context.newPage();
  await page.goto("/admin");
  await expect(page.getByTestId("admin-sign-in")).toContainText("Your admin session is no longer valid.");
  await expect(page.getByTestId("admin-dashboard")).toHaveCount(0);
  expect((await context.request.get(`${baseURL}/api/admin/overview`)).status()).toBe(403);
  await signIn(page);
  expect((await context.request.get(`${baseURL}/api/admin/overview`)).status()).toBe(200);
  await context.close();
});

test("signing out ends the session on the server, and the Instance page lists sessions and ends them all", async ({
  page,
  browser,
  baseURL,
}) => {
  await signIn(page);
  const [copied] = (await page.context().cookies()).filter((cookie) => cookie.name === "parley_admin");
  expect(copied).toBeDefined();
  await page.getByTestId("admin-sign-out").click();
  await expect(page.getByTestId("admin-sign-in")).toBeVisible();
  // A copy of the cookie, kept elsewhere, opens nothing after the sign-out.
  const elsewhere = await browser.newContext();
  await elsewhere.addCookies([{ name: "parley_admin", value: copied!.value, url: baseURL! }]);
  expect((await elsewhere.request.get(`${baseURL}/api/admin/overview`)).status()).toBe(403);
  await elsewhere.close();

  // Two admins signed in: one ends every session from the Instance page.
  const other = await browser.newContext();
  const otherPage = await other.newPage();
  await signIn(otherPage);
  await signIn(page);
  await page.goto("/admin/instance");
  const sessions = page.getByTestId("instance-session");
  await expect.poll(() => sessions.count()).toBeGreaterThanOrEqual(2);
  await expect(page.locator('[data-testid="instance-session"][data-current="true"]')).toHaveCount(1);
  await page.getByTestId("end-all-sessions").click();
  await expect(page.getByTestId("admin-sign-in")).toBeVisible();
  expect((await other.request.get(`${baseURL}/api/admin/overview`)).status()).toBe(403);
  await otherPage.reload();
  await expect(otherPage.getByTestId("admin-sign-in")).toBeVisible();
  await other.close();
});
