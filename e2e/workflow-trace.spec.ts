import { expect, test } from "./support/fixtures";
import { createRoomViaApi } from "./support/room-page";

test("any agent's work in the feed opens its workflow as a timeline by agent", async ({ openRoom, baseURL }) => {
  const roomId = await createRoomViaApi(baseURL!, "Traced");
  const room = await openRoom(roomId, { name: "Ada" });
  await room.page.getByTestId("agent-songwriter").getByTestId("agent-start").click();
  // The Songwriter asks the Scene Painter: one workflow, two agents.
  await expect(room.page.getByTestId("agent-scene-painter").getByTestId("agent-status")).toHaveText("idle", { timeout: 30_000 });
  await expect(room.page.getByTestId("feed-entry").filter({ hasText: "reacted to Songwriter's contribution" })).toBeVisible({
    timeout: 30_000,
  });

  // Who asked whom: the Songwriter's request to the Scene Painter, counted.
  await room.page.getByTestId("who-asked-toggle").click();
  await expect(room.page.locator('[data-testid="who-asked-edge"][data-kind="request"]')).toHaveAttribute("data-count", "1");
  await room.page.getByTestId("who-asked-toggle").click();

  const entry = room.page.getByTestId("feed-entry").filter({ hasText: "reacted to Songwriter's contribution" });
  await entry.hover();
  await entry.getByTestId("trace-workflow").click();
  const trace = room.page.getByTestId("workflow-trace");
  await expect(trace).toBeVisible();
  await expect(trace.getByTestId("trace-summary")).toContainText(/complete|in progress/);
  await expect(trace.getByTestId("trace-summary")).toContainText("2 runs");
  await expect(trace.locator(".trace__lane-head").filter({ hasText: "Songwriter" })).toBeVisible();
  await expect(trace.locator(".trace__lane-head").filter({ hasText: "Scene Painter" })).toBeVisible();
  expect(await trace.getByTestId("trace-message").count()).toBeGreaterThan(10);
  await expect(trace.getByTestId("trace-message").first()).toHaveAttribute("data-type", "run.queued");
  await expect(trace.getByRole("link", { name: "Export (JSON Lines)" })).toHaveAttribute("href", /\/workflows\/.+\/export$/);
  await trace.getByRole("button", { name: "Close" }).click();
  await expect(trace).toHaveCount(0);
});

test("a workflow's trace shows what caused what as a tree that folds from the keyboard", async ({ openRoom, baseURL }) => {
  const roomId = await createRoomViaApi(baseURL!, "Traced as a tree");
  const room = await openRoom(roomId, { name: "Ada" });
  await room.page.getByTestId("agent-songwriter").getByTestId("agent-start").click();
  await expect(room.page.getByTestId("feed-entry").filter({ hasText: "reacted to Songwriter's contribution" })).toBeVisible({
    timeout: 30_000,
  });
  const entry = room.page.getByTestId("feed-entry").filter({ hasText: "reacted to Songwriter's contribution" });
  await entry.hover();
  await entry.getByTestId("trace-workflow").click();
  const trace = room.page.getByTestId("workflow-trace");
  await trace.getByTestId("trace-view-tree").click();
  await expect(trace.getByTestId("trace-view-tree")).toHaveAttribute("aria-pressed", "true");
  const tree = trace.getByTestId("trace-tree");
  // One root: the run that started the workflow; everything else is under it.
  await expect(tree.locator(":scope > li")).toHaveCount(1);
  await expect(tree.locator(":scope > li").first()).toHaveAttribute("data-type", "run.queued");
  expect(await tree.getByTestId("trace-node").count()).toBeGreaterThan(10);
  // A run's steps sit under its start.
  await expect(tree.locator('[data-type="run.started"] [data-type="run.step"]').first()).toBeVisible();
  await room.page.screenshot({ path: "test-results/screenshots/workflow-tree.png" });

  // Fold the root from the keyboard: what it caused is hidden, and unfolding shows it again.
  const toggle = tree.locator(":scope > li > .trace__node > button.trace__toggle");
  await toggle.focus();
  await room.page.keyboard.press("Enter");
  await expect(toggle).toHaveAttribute("aria-expanded", "false");
  await expect(tree.locator('[data-type="run.step"]').first()).toBeHidden();
  await room.page.keyboard.press("Space");
  await expect(toggle).toHaveAttribute("aria-expanded", "true");
  await expect(tree.locator('[data-type="run.step"]').first()).toBeVisible();
});
