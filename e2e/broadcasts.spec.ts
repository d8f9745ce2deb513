import { expect, test } from "./support/fixtures";
import { type RoomPage, configureRoom, createRoomViaApi } from "./support/room-page";

async function startAgent(room: RoomPage, persona: string, prompt: string) {
  await room.page.getByTestId(`agent-${persona}`).getByTestId("agent-prompt").click();
  await room.page.getByTestId("agent-prompt-input").fill(prompt);
  await room.page.getByTestId("agent-prompt-start").click();
}

test("people answer an agent's question in the page; the question queued behind it then appears with its full countdown", async ({
  openRoom,
  baseURL,
}) => {
  // Two agents' runs, one waiting on the other's question.
  test.setTimeout(120_000);
  const roomId = await createRoomViaApi(baseURL!, "Ask the room");
  await configureRoom(baseURL!, roomId, { broadcast: "human", broadcast_sensitivity: "high", broadcast_timeout: 120 });
  const ada = await openRoom(roomId, { name: "Ada" });
  const spectator = await openRoom(roomId);

  await startAgent(ada, "songwriter", "Write a verse about the harbour at night.");
  await startAgent(ada, "scene-painter", "Paint the harbour at night.");

  const question = ada.page.getByTestId("human-question");
  await expect(question).toBeVisible({ timeout: 15_000 });
  const asker = (await question.locator("strong").textContent())!;
  const first = (await question.getAttribute("data-broadcast-id"))!;
  await expect(ada.page.getByTestId("question-countdown")).toHaveText(/\d+s left/);
  await expect(spectator.page.getByTestId("human-question")).toBeVisible();
  await expect(spectator.page.getByTestId("question-spectator")).toBeVisible();
  await expect(spectator.page.getByTestId("question-answer")).toHaveCount(0);
  await expect(spectator.page.getByTestId("question-send")).toHaveCount(0);
  await expect(ada.page.getByTestId("human-question").getByText("1 more waiting")).toBeVisible({ timeout: 15_000 });
  const askerPersona = asker === "Songwriter" ? "songwriter" : "scene-painter";
  const otherPersona = asker === "Songwriter" ? "scene-painter" : "songwriter";
  await expect(ada.page.getByTestId(`agent-${askerPersona}`).getByTestId("agent-status")).toHaveText("asking the room");
  // The second question waits a few seconds: they must not come off its own time.
  await ada.page.waitForTimeout(3000);

  await ada.page.getByTestId("question-answer").fill("the gulls over the harbour");
  const answered = Date.now();
  await ada.page.getByTestId("question-send").click();

  // The question queued behind it is never closed by that answer: it opens, with all of its two minutes.
  await expect(question).not.toHaveAttribute("data-broadcast-id", first, { timeout: 10_000 });
  await expect(question.locator("strong")).toHaveText(asker === "Songwriter" ? "Scene Painter" : "Songwriter");
  const shown = Number.parseInt((await ada.page.getByTestId("question-countdown").textContent())!, 10);
  expect(shown).toBeGreaterThanOrEqual(Math.floor(120 - (Date.now() - answered) / 1000) - 1);
  expect(shown).toBeLessThanOrEqual(120);
  await expect(spectator.page.getByTestId("question-countdown")).toHaveText(/^1[01]\ds left$/);
  await ada.page.screenshot({ path: "test-results/screenshots/broadcast-next-question.png" });

  const used = asker === "Songwriter" ? '[data-kind="lyric"]' : '[data-kind="scene"]';
  await expect(spectator.page.locator(used).filter({ hasText: "the gulls over the harbour" }).first()).toBeVisible({
    timeout: 20_000,
  });
  await ada.page.getByTestId("question-skip").click();
  await expect(ada.page.getByTestId("human-question")).toHaveCount(0);
  await expect(spectator.page.getByTestId("broadcast-thread").filter({ hasText: "skipped" })).toBeVisible();
  await expect(spectator.page.getByTestId("broadcast-thread").filter({ hasText: "deferred" })).toHaveCount(0);
  const answeredThread = spectator.page.getByTestId("broadcast-thread").filter({ hasText: "the gulls over the harbour" });
  await expect(answeredThread.getByTestId("broadcast-answer").locator(".badge--human")).toHaveText("human");

  await expect(spectator.page.getByTestId(`agent-${askerPersona}`).getByTestId("agent-status")).toHaveText("idle", { timeout: 20_000 });
  await expect(spectator.page.getByTestId(`agent-${otherPersona}`).getByTestId("agent-status")).toHaveText("idle", { timeout: 20_000 });
  await spectator.page.screenshot({ path: "test-results/screenshots/broadcast-human.png" });
});

test("the same question later is answered from the earlier answer, and people can ask the room again", async ({ openRoom, baseURL }) => {
  // Two runs of one agent, one after the other, and a question asked again.
  test.setTimeout(120_000);
  const roomId = await createRoomViaApi(baseURL!, "Asked before");
  await configureRoom(baseURL!, roomId, { broadcast: "human", broadcast_sensitivity: "high", broadcast_timeout: 120 });
  const ada = await openRoom(roomId, { name: "Ada" });
  const spectator = await openRoom(roomId);
  const storyQuestion = "Whose eyes should the story see through: the one who stays or the one who leaves?";

  await startAgent(ada, "storyteller", "Tell the story of the harbour at night.");
  await expect(ada.page.getByTestId("question-text")).toHaveText(storyQuestion, { timeout: 15_000 });
  // A choice fills the answer in; Send sends it.
  await ada.page.getByTestId("question-option").filter({ hasText: "the one who leaves" }).click();
  await expect(ada.page.getByTestId("question-option").filter({ hasText: "the one who leaves" })).toHaveAttribute("aria-pressed", "true");
  await expect(ada.page.getByTestId("question-answer")).toHaveValue("the one who leaves");
  await ada.page.getByTestId("question-send").click();
  await expect(ada.page.getByTestId("agent-storyteller").getByTestId("agent-status")).toHaveText("idle", { timeout: 20_000 });

  // Its next run asks the same question: the people are not asked again.
  await startAgent(ada, "storyteller", "Tell the story of the harbour at dawn.");
  const reused = spectator.page.getByTestId("broadcast-thread").filter({ hasText: "answered from Ada's earlier answer" });
  await expect(reused).toBeVisible({ timeout: 15_000 });
  await expect(reused.getByTestId("broadcast-answer")).toContainText("the one who leaves");
  await expect(spectator.page.getByTestId("ask-again")).toHaveCount(0);
  await expect(ada.page.getByTestId("agent-storyteller").getByTestId("agent-status")).toHaveText("idle", { timeout: 20_000 });
  const reusedForAda = ada.page.getByTestId("broadcast-thread").filter({ hasText: "answered from Ada's earlier answer" });
  await reusedForAda.scrollIntoViewIfNeeded();
  await reusedForAda.screenshot({ path: "test-results/screenshots/broadcast-reused.png" });

  // A participant asks the room after all: the question opens again, and the new answer goes to the storyteller.
  await ada.page.getByTestId("broadcast-thread").filter({ hasText: "answered from Ada's earlier answer" }).getByTestId("ask-again").click();
  const question = ada.page.getByTestId("human-question");
  await expect(question.getByTestId("question-text")).toHaveText(storyQuestion, { timeout: 15_000 });
  await expect(question.getByText("asked again")).toBeVisible();
  await expect(ada.page.getByTestId("question-countdown")).toHaveText(/^1[01]\ds left$/);
  await ada.page.getByTestId("question-option").filter({ hasText: "the one who stays" }).click();
  await ada.page.getByTestId("question-send").click();
  await expect(ada.page.getByTestId("human-question")).toHaveCount(0);
  await expect(spectator.page.getByTestId("asked-again")).toHaveText("asked the room again: answered");
  await expect(
    spectator.page
      .getByTestId("feed-entry")
      .filter({ hasText: "put Storyteller's question to the room again" })
      .getByTestId("broadcast-answer"),
  ).toContainText("the one who stays");
  await spectator.page.getByTestId("asked-again").scrollIntoViewIfNeeded();
  await spectator.page.getByTestId("feed").screenshot({ path: "test-results/screenshots/broadcast-asked-again.png" });
});

test("the countdown runs out and the agent carries on without an answer", async ({ openRoom, baseURL }) => {
  const roomId = await createRoomViaApi(baseURL!, "Nobody answers");
  await configureRoom(baseURL!, roomId, { broadcast: "human", broadcast_sensitivity: "high", broadcast_timeout: 3 });
  const ada = await openRoom(roomId, { name: "Ada" });
  await startAgent(ada, "songwriter", "Write a verse about the harbour at night.");
  await expect(ada.page.getByTestId("human-question")).toBeVisible({ timeout: 15_000 });
  await ada.page.screenshot({ path: "test-results/screenshots/broadcast-question.png" });
  await expect(ada.page.getByTestId("question-countdown")).toHaveText("1s left", { timeout: 4_000 });
  await expect(ada.page.getByTestId("human-question")).toHaveCount(0, { timeout: 4_000 });
  await expect(
    ada.page.getByTestId("broadcast-thread").filter({ hasText: "nobody answered in time · Songwriter carries on without an answer" }),
  ).toBeVisible({ timeout: 6_000 });
  await expect(ada.page.locator('[data-kind="lyric"]')).toHaveCount(2, { timeout: 20_000 });
});

test("a device whose clock is off counts a question down by the server's clock, from its full time", async ({ openRoom, baseURL }) => {
  const roomId = await createRoomViaApi(baseURL!, "Clocks that disagree");
  await configureRoom(baseURL!, roomId, { broadcast: "human", broadcast_sensitivity: "high", broadcast_timeout: 60 });
  // Ten minutes slow, a device would show eleven minutes left; ten minutes fast, time up at once.
  const slow = await openRoom(roomId, { name: "Ada", clockOffMs: -10 * 60_000 });
  const fast = await openRoom(roomId, { clockOffMs: 10 * 60_000 });
  await startAgent(slow, "songwriter", "Write a verse about the harbour at night.");
  for (const room of [slow, fast]) {
    const countdown = room.page.getByTestId("question-countdown");
    await expect(countdown).toHaveText(/^\d+s left$/, { timeout: 15_000 });
    const left = Number((await countdown.textContent())!.match(/\d+/)![0]);
    expect(left).toBeLessThanOrEqual(60);
    expect(left).toBeGreaterThan(40);
  }
});

test("agents ask each other: each shadow's answer lands in the thread", async ({ openRoom, baseURL }) => {
  const roomId = await createRoomViaApi(baseURL!, "Ask the team");
  await configureRoom(baseURL!, roomId, { broadcast: "agents", broadcast_sensitivity: "high" });
  const ada = await openRoom(roomId, { name: "Ada" });
  await startAgent(ada, "songwriter", "Write a verse about the harbour at night.");
  const thread = ada.page.getByTestId("broadcast-thread").first();
  await expect(thread).toBeVisible({ timeout: 15_000 });
  await expect(thread.getByTestId("broadcast-answer")).toHaveCount(4, { timeout: 20_000 });
  await expect(thread.getByTestId("broadcast-outcome")).toHaveText(/answered in [\d.]+s/);
  await expect(thread).toContainText("From the painting side");
});

test("a question that waited behind another gets the room's whole countdown when it opens", async ({ openRoom, baseURL }) => {
  const roomId = await createRoomViaApi(baseURL!, "Questions in turn");
  await configureRoom(baseURL!, roomId, { broadcast: "human", broadcast_sensitivity: "high", broadcast_timeout: 40 });
  const ada = await openRoom(roomId, { name: "Ada" });
  await startAgent(ada, "songwriter", "Write a verse about the harbour at night.");
  await startAgent(ada, "scene-painter", "Paint the harbour at night.");

  const question = ada.page.getByTestId("human-question");
  await expect(question.getByText("1 more waiting")).toBeVisible({ timeout: 15_000 });
  const first = (await question.getAttribute("data-broadcast-id"))!;
  // The second question waits its turn while ten seconds of the first one's pass, which must not
  // come off its own time.
  const countdown = ada.page.getByTestId("question-countdown");
  const left = async () => Number.parseInt((await countdown.textContent()) ?? "", 10);
  const start = await left();
  await expect.poll(left, { timeout: 15_000, intervals: [250] }).toBeLessThanOrEqual(start - 10);
  const skipped = Date.now();
  await ada.page.getByTestId("question-skip").click();
  await expect(question).not.toHaveAttribute("data-broadcast-id", first, { timeout: 10_000 });
  await expect(question).toBeVisible();
  const shown = (await ada.page.getByTestId("question-countdown").textContent())!;
  expect(shown).toMatch(/^\d+s left$/);
  // It opened after the skip, so all of its 40 s but the time since are left: the ten and more it
  // waited behind the first question did not come off them, however long the page took to show it.
  expect(Number.parseInt(shown, 10)).toBeGreaterThanOrEqual(Math.floor(40 - (Date.now() - skipped) / 1000));
  expect(Number.parseInt(shown, 10)).toBeLessThanOrEqual(40);
});
