import { expect, test } from "./support/fixtures";
import { createRoomViaApi } from "./support/room-page";

test("the Songwriter writes, asks the Scene Painter, and both tabs watch the chain unfold", async ({ openRoom, baseURL }) => {
  const roomId = await createRoomViaApi(baseURL!, "Rain on the window");
  const participant = await openRoom(roomId, { name: "Ada" });
  const watcher = await openRoom(roomId);

  const songwriter = participant.page.getByTestId("agent-songwriter");
  await songwriter.getByTestId("agent-prompt").click();
  await participant.page.getByTestId("agent-prompt-input").fill("Write a short verse about rain on a city window at night.");
  await participant.page.getByTestId("agent-prompt-start").click();

  for (const room of [participant, watcher]) {
    await expect(room.page.getByTestId("agent-songwriter").getByTestId("agent-status")).toHaveText(/running|typing|queued/, {
      timeout: 10_000,
    });
  }
  await expect(watcher.page.getByTestId("feed-typing").first()).toBeVisible({ timeout: 10_000 });

  for (const room of [participant, watcher]) {
    await expect(
      room.page.locator(".react-flow__node[data-kind], .react-flow__node").filter({ has: room.page.locator('[data-kind="lyric"]') }),
    ).toHaveCount(2, { timeout: 20_000 });
    await expect(room.page.getByTestId("feed-entry").filter({ hasText: "asked Scene Painter to paint a visual scene" })).toBeVisible({
      timeout: 20_000,
    });
    await expect(room.page.locator('[data-kind="scene"]')).toHaveCount(2, { timeout: 30_000 });
    await expect(room.edgeLabel("illustrates")).toBeVisible({ timeout: 20_000 });
    await expect(room.page.getByTestId("feed-entry").filter({ hasText: "reacted to Songwriter's contribution" })).toBeVisible({
      timeout: 20_000,
    });
    await expect(room.page.getByTestId("agent-scene-painter").getByTestId("agent-status")).toHaveText("idle", { timeout: 20_000 });
  }

  const reaction = watcher.page.getByTestId("feed-entry").filter({ hasText: "reacted to Songwriter's contribution" });
  await reaction.click();
  await expect(watcher.page.locator(".note--highlighted")).toHaveCount(2);
  await expect(
    watcher.page
      .getByTestId("feed-entry")
      .filter({ hasText: /step \d+ · [\d.]+s · [\d,]+ tok · \$0\.0000/ })
      .first(),
  ).toBeVisible();

  await watcher.fitView();
  await watcher.viewSettled();
  await watcher.page.screenshot({ path: "test-results/screenshots/agents-collaborate.png" });
});
