import { expect, test } from "./support/fixtures";
import { configureRoom, createRoomViaApi } from "./support/room-page";

const edge = (kind: string, from: string, to: string) =>
  `[data-testid="who-asked-edge"][data-kind="${kind}"][data-from="${from}"][data-to="${to}"]`;
const ANSWERING = '[data-testid="agent-scene-painter"][data-status="answering"]';

test("who asked whom draws an agent's questions and a person's message as they happen, and a teammate answering says so", async ({
  openRoom,
  baseURL,
}, testInfo) => {
  const roomId = await createRoomViaApi(baseURL!, "Ask the team");
  await configureRoom(baseURL!, roomId, { broadcast: "agents", broadcast_sensitivity: "high" });
  const ada = await openRoom(roomId, { name: "Ada" });
  const watcher = await openRoom(roomId);
  await watcher.recordAppearances([ANSWERING]);

  // Open before anything happens: it fills in live.
  const toggle = watcher.page.getByTestId("who-asked-toggle");
  await toggle.click();
  await expect(watcher.page.getByTestId("who-asked")).toContainText("Nobody has asked anyone yet.");
  await expect(toggle).toHaveText("Who asked whom");

  await ada.page.getByTestId("agent-songwriter").getByTestId("agent-prompt").click();
  await ada.page.getByTestId("agent-prompt-input").fill("Write a verse about the harbour at night.");
  await ada.page.getByTestId("agent-prompt-start").click();

  // The Songwriter puts its question to each teammate: one arrow to each, counted once.
  for (const teammate of ["Scene Painter", "Storyteller", "Idea Weaver", "Creative Curator"]) {
    await expect(watcher.page.locator(edge("question", "Songwriter", teammate))).toHaveAttribute("data-count", "1", { timeout: 20_000 });
  }
  await expect(watcher.page.getByTestId("broadcast-thread").first().getByTestId("broadcast-answer")).toHaveCount(4, { timeout: 20_000 });
  // While its shadow answered, the Scene Painter's card said so rather than "idle".
  expect(await watcher.appeared(ANSWERING)).toBe(true);
  // The toggle's total is every arrow's count added up (the Songwriter may also have asked for help).
  const arrowsAddUp = async () => {
    const counts = await watcher.page
      .getByTestId("who-asked-edge")
      .evaluateAll((edges) => edges.map((one) => Number(one.getAttribute("data-count"))));
    return (await toggle.textContent()) === `Who asked whom · ${counts.reduce((sum, count) => sum + count, 0)}`;
  };
  await expect.poll(arrowsAddUp).toBe(true);
  await expect(watcher.page.getByTestId("agent-scene-painter").getByTestId("agent-status")).toHaveText("idle", { timeout: 20_000 });

  // A person's message is an arrow from the people to the agent.
  await ada.page.getByTestId("command-input").fill("@Scene Painter paint the harbour at dawn");
  await ada.page.getByTestId("command-send").click();
  await expect(watcher.page.locator(edge("command", "People", "Scene Painter"))).toHaveAttribute("data-count", "1");
  await watcher.page.getByTestId("who-asked").screenshot({ path: testInfo.outputPath("who-asked-whom.png") });

  // A page opened now reads the same counts from the room's history.
  const late = await openRoom(roomId);
  await late.page.getByTestId("who-asked-toggle").click();
  await expect(late.page.locator(edge("command", "People", "Scene Painter"))).toHaveAttribute("data-count", "1");
  await expect(late.page.locator(edge("question", "Songwriter", "Creative Curator"))).toHaveAttribute("data-count", "1");
});
