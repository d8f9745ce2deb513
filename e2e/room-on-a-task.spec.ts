import type { Page } from "@playwright/test";
import { expect, test } from "./support/fixtures";
import { configureRoom } from "./support/room-page";

/** Creates a room from the home page as a person would: the task typed, a template, and optionally a name (and start at once). */
async function createFromHome(page: Page, task: string, template: string, creator?: { name: string; start: boolean }): Promise<string> {
  await page.goto("/");
  await expect(page.getByTestId("room-creation-policy")).toHaveText(
    "Anyone may create rooms on this server (only the offline model is configured).",
  );
  await expect(page.getByTestId("create-room")).toBeDisabled();
  await page.getByTestId("room-task-input").fill(task);
  await page.getByTestId("room-template").selectOption(template);
  if (creator) {
    await page.getByTestId("room-creator-name").fill(creator.name);
    if (!creator.start) await page.getByTestId("room-start-now").uncheck();
  }
  await page.getByTestId("create-room").click();
  await expect(page).toHaveURL(/\/rooms\//);
  await expect(page.getByTestId("connection-status")).toHaveAttribute("data-state", "live");
  return page.url().split("/rooms/")[1]!;
}

test("a room created on a typed task: a spectator sees what will happen, its creator starts the team, the first piece names the task, and a command is followed", async ({
  page,
  openRoom,
}) => {
  test.setTimeout(120_000);
  const roomId = await createFromHome(page, "A lullaby for a lighthouse keeper", "creative-canvas", { name: "Ada", start: false });
  await expect(page.getByTestId("room-title")).toHaveText("A lullaby for a lighthouse keeper");
  await expect(page.getByTestId("seat-name")).toContainText("Ada");
  await expect(page.getByTestId("team-task")).toHaveText("A lullaby for a lighthouse keeper");
  await expect(page.getByTestId("team-plan")).toContainText("Songwriter goes first");

  // A spectator reads what will happen and how to join, and has nothing to press.
  const spectator = await openRoom(roomId);
  await expect(spectator.page.getByTestId("team-task")).toHaveText("A lullaby for a lighthouse keeper");
  await expect(spectator.page.getByTestId("team-join-hint")).toContainText("Take a seat");
  await expect(spectator.page.getByTestId("start-team")).toHaveCount(0);
  await spectator.page.screenshot({ path: "test-results/screenshots/empty-room-spectator.png" });

  await page.getByTestId("start-team").click();
  // The first piece is about the task, not about rain.
  const first = spectator.page.locator('[data-kind="lyric"]').first();
  await expect(first).toBeVisible({ timeout: 30_000 });
  await expect(first).toContainText(/lullaby|lighthouse|keeper/i);
  await expect(page.getByTestId("team-start")).toHaveCount(0);

  // A command is followed: the piece made for it is about what it asks, and the line saying it was sent ends.
  await page.getByTestId("command-input").fill("@Storyteller write about a foghorn");
  await page.getByTestId("command-send").click();
  // "Sent to Storyteller — starting now." may already be gone by now: an idle agent reads the message at once.
  const answered = spectator.page.locator('[data-kind="story"]').filter({ hasText: "As Ada asked — “write about a foghorn”" });
  await expect(answered).toBeVisible({ timeout: 45_000 });
  const body = (await answered.first().innerText()).split("\n").slice(1).join("\n");
  expect(body).toMatch(/foghorn/i);
  await expect(page.getByTestId("command-status")).toHaveCount(0);
});

test("the room's creator sends the agents' questions to the people here; a choice fills the answer in, Send sends, and the question covers no note", async ({
  page,
  openRoom,
  baseURL,
}) => {
  test.setTimeout(120_000);
  const roomId = await createFromHome(page, "A sea shanty about the harbour at night", "creative-canvas", { name: "Ada", start: false });
  await configureRoom(baseURL!, roomId, { broadcast_sensitivity: "high", broadcast_timeout: 120 });
  // Another seated person may not switch it; the owner may.
  const guest = await openRoom(roomId, { name: "Ben" });
  await expect(guest.page.getByTestId("question-mode")).toHaveCount(0);
  await expect(page.getByTestId("question-mode")).toHaveValue("off");
  await page.getByTestId("question-mode").selectOption("human");
  const settings = async () =>
    ((await (await page.request.get(`/api/rooms/${roomId}`)).json()) as { settings: { broadcast: string } }).settings;
  await expect.poll(async () => (await settings()).broadcast).toBe("human");

  await page.getByTestId("agent-storyteller").getByTestId("agent-start").click();
  const question = guest.page.getByTestId("human-question");
  await expect(question).toBeVisible({ timeout: 30_000 });
  const option = guest.page.getByTestId("question-option").first();
  const choice = (await option.textContent())!;
  await option.click();
  // Selecting answers nothing yet.
  await expect(option).toHaveAttribute("aria-pressed", "true");
  await expect(guest.page.getByTestId("question-answer")).toHaveValue(choice);
  await expect(question).toBeVisible();
  // The question is beside the canvas, not over it: no note is under it.
  const card = (await question.boundingBox())!;
  const canvas = (await guest.page.locator(".react-flow").boundingBox())!;
  expect(card.y).toBeGreaterThanOrEqual(canvas.y + canvas.height - 1);
  await guest.page.screenshot({ path: "test-results/screenshots/question-chosen.png" });
  await guest.page.getByTestId("question-send").click();
  await expect(question).toHaveCount(0, { timeout: 10_000 });
  await expect(page.getByTestId("broadcast-thread").filter({ hasText: choice }).first()).toBeVisible({ timeout: 10_000 });
});

test("each template from the home page to its first contribution on the typed task", async ({ page }) => {
  test.setTimeout(180_000);
  const cases = [
    {
      template: "creative-canvas",
      task: "A lullaby for a lighthouse keeper",
      first: '[data-kind="lyric"]',
      names: /lullaby|lighthouse|keeper/i,
    },
    {
      template: "build-review",
      task: "Write a Python function word_count(s) that returns how many words s has",
      first: '[data-kind="brief"]',
      names: /word_count\(s: str\) returning int/,
    },
    {
      template: "brainstorm",
      task: "Reduce food waste in our office cafeteria",
      first: '[data-kind="framing"]',
      names: /food waste|cafeteria/i,
    },
  ];
  for (const { template, task, first, names } of cases) {
    await createFromHome(page, task, template, { name: "Ada", start: true });
    const piece = page.locator(first).first();
    await expect(piece, template).toBeVisible({ timeout: 45_000 });
    await expect(piece, template).toContainText(names);
    await page.screenshot({ path: `test-results/screenshots/first-contribution-${template}.png` });
  }
});
