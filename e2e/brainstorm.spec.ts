import { expect, test } from "./support/fixtures";
import { createRoomViaApi } from "./support/room-page";

test("a participant approves the brainstorm's shortlist and the deliverable appears; a spectator watches but cannot decide", async ({
  openRoom,
  baseURL,
}) => {
  test.setTimeout(180_000);
  const roomId = await createRoomViaApi(baseURL!, "Onboarding", "brainstorm");
  const participant = await openRoom(roomId, { name: "Ada" });
  const spectator = await openRoom(roomId);
  await expect(spectator.page.getByTestId("brainstorm-problem")).toHaveCount(0);

  await participant.page.getByTestId("brainstorm-problem").fill("How might we cut onboarding time for new engineers?");
  await participant.page.getByTestId("brainstorm-start").click();

  // Both watch the stages move: ten chips across the room, the ideas counted against 20–60.
  for (const room of [participant, spectator]) {
    await expect(room.page.getByTestId("stage-tracker").locator("li")).toHaveCount(10);
    await expect(room.page.getByTestId("stage-framing")).toHaveAttribute("data-status", /running|done/, { timeout: 20_000 });
    await expect(room.page.getByTestId("stage-divergent")).toContainText(/\d+ ideas of 20–60/, { timeout: 60_000 });
  }
  await participant.page.screenshot({ path: test.info().outputPath("brainstorm-ideas.png") });

  // At the gate: the ranked shortlist for both; only the participant may act.
  for (const room of [participant, spectator]) {
    await expect(room.page.getByTestId("stage-gate")).toHaveAttribute("data-status", "awaiting", { timeout: 90_000 });
    await expect(room.page.getByTestId("gate-ranking").locator("li").first()).toBeVisible();
    await expect(room.page.getByTestId("gate-waited")).toContainText(/waiting \d+s/);
  }
  await expect(spectator.page.getByTestId("gate-approve")).toHaveCount(0);
  await expect(spectator.page.getByTestId("gate-watch-only")).toContainText("Take a seat to decide");
  // The API refuses a spectator too.
  const refused = await spectator.page.request.post(
    `/api/rooms/${roomId}/brainstorms/${await brainstormId(spectator.page.request, roomId)}/gate`,
    {
      data: { action: "approve", round: 1 },
    },
  );
  expect(refused.status()).toBe(403);
  await participant.page.screenshot({ path: test.info().outputPath("brainstorm-gate.png") });

  const top = await participant.page.getByTestId("gate-ranking").locator("li").first().locator("strong").innerText();
  await participant.page.getByTestId("gate-approve").click();

  for (const room of [participant, spectator]) {
    await expect(room.page.getByTestId("stage-presentation")).toHaveAttribute("data-status", "done", { timeout: 60_000 });
    await expect(room.page.getByTestId("brainstorm-status")).toContainText("the deliverable is ready");
  }
  await spectator.page.getByTestId("read-deliverable").click();
  const body = spectator.page.getByTestId("deliverable-body");
  await expect(body.locator("h2", { hasText: "Recommendation" })).toBeVisible();
  await expect(body).toContainText(top.replace(/^1\. /, ""));
  await expect(body.locator("h2")).toHaveText(["Recommendation", "Reasons", "Steps", "Risks", "Alternatives"]);
  await spectator.page.screenshot({ path: test.info().outputPath("brainstorm-deliverable.png") });
  const download = await spectator.page.request.get(
    await spectator.page
      .getByTestId("download-deliverable")
      .getAttribute("href")
      .then((href) => href!),
  );
  expect(download.headers()["content-type"]).toContain("text/markdown");
  expect(await download.text()).toContain("## Recommendation");
});

async function brainstormId(request: import("@playwright/test").APIRequestContext, roomId: string): Promise<string> {
  const response = await request.get(`/api/rooms/${roomId}/brainstorms`);
  return ((await response.json()) as { brainstorm: { id: string } }).brainstorm.id;
}
