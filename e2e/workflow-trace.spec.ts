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
