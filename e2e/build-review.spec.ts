import { expect, test } from "./support/fixtures";
import { createRoomViaApi } from "./support/room-page";

const LINKS = '[data-testid="dialogue-links"]';
const TIMER = '[data-testid="dialogue-timer"]';

test("a build review runs from a typed task to approval, its dialogue live with timers and costs", async ({ openRoom, baseURL }) => {
  const roomId = await createRoomViaApi(baseURL!, "Word counter", "build-review");
  const participant = await openRoom(roomId, { name: "Ada" });
  const watcher = await openRoom(roomId);
  await expect(watcher.page.getByTestId("review-task")).toHaveCount(0);
  // The canvas's link between the two agents and the timer of the turn being written last only
  // while the dialogue does, which at the offline model's pace here can be a second or two.
  for (const room of [participant, watcher]) await room.recordAppearances([LINKS, TIMER]);

  await participant.page.getByTestId("review-task").fill("Write a function that counts the words in a sentence");
  await participant.page.getByTestId("review-start").click();

  for (const room of [participant, watcher]) {
    const thread = room.page.getByTestId("dialogue-thread");
    await expect(thread).toBeVisible({ timeout: 30_000 });
    await expect(thread).toContainText("Reviewer ↔ Coder");
  }
  for (const room of [participant, watcher]) {
    await expect(room.page.getByTestId("dialogue-closed")).toContainText("Resolved after 2 rounds", { timeout: 30_000 });
    await expect(room.page.getByTestId("dialogue-thread")).toContainText("Reviewer ↔ Coder · round 2/2");
    // While it lasted, the canvas linked the two and the turn being written showed a running timer;
    // each message shows its duration and cost once written.
    expect(await room.appeared(LINKS)).toBe(true);
    expect(await room.appeared(TIMER)).toBe(true);
    await expect(room.page.getByTestId("dialogue-figures")).toHaveCount(4);
    await expect(room.page.getByTestId("dialogue-figures").first()).toHaveText(/^\d+\.\d s · \$0\.0000$/);
    await expect(room.page.getByTestId("review-status")).toContainText("Approved · 2 rounds", { timeout: 30_000 });
    await expect(room.page.locator('[data-kind="code"]')).toHaveCount(1);
    await expect(room.page.getByTestId("code-version")).toHaveText("v2");
    await expect(room.page.locator('[data-kind="code"] .hljs-keyword').first()).toBeVisible();
  }
  await expect(watcher.page.getByTestId("dialogue-links")).toHaveCount(0);
  // Who asked whom counts the dialogue as the Reviewer asking the Coder.
  await watcher.page.getByTestId("who-asked-toggle").click();
  await expect(
    watcher.page.locator('[data-testid="who-asked-edge"][data-kind="dialogue"][data-from="Reviewer"][data-to="Coder"]'),
  ).toHaveAttribute("data-count", "1");
  await watcher.page.getByTestId("who-asked-toggle").click();

  // The label is the code's version, not the node's: a tidy moves the node and bumps only its own.
  await participant.page.getByTestId("tidy-canvas").click();
  const code = watcher.page.locator('[data-kind="code"]');
  await expect(code.getByTestId("code-block")).toHaveAttribute("data-language", "typescript");
  await expect(code.getByTestId("code-version")).toHaveText("v2");
  // Any earlier version, from the picker.
  const latest = await code.locator("pre code").innerText();
  await code.getByTestId("code-versions").selectOption("1");
  await expect(code.getByTestId("code-version")).toHaveText("v1");
  await expect(code.locator("pre code")).not.toHaveText(latest);
  await code.getByTestId("code-versions").selectOption("2");
  await expect(code.locator("pre code")).toHaveText(latest);
});
