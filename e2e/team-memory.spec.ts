import { expect, test } from "./support/fixtures";
import { E2E_ADMIN_TOKEN } from "./support/constants";
import { createRoomViaApi } from "./support/room-page";

test("a participant steers an agent from the command bar, and findings reach every tab", async ({ openRoom, baseURL }) => {
  const roomId = await createRoomViaApi(baseURL!, "Harbour songs");
  const participant = await openRoom(roomId, { name: "Ada" });
  const watcher = await openRoom(roomId);

  // Spectators watch; only participants get the bar.
  await expect(watcher.page.getByTestId("command-bar")).toHaveCount(0);
  const input = participant.page.getByTestId("command-input");
  await input.fill("@song");
  await expect(participant.page.getByTestId("command-suggestions")).toContainText("Songwriter");
  await input.press("Tab");
  await expect(input).toHaveValue("@Songwriter ");
  await input.pressSequentially("write about a lighthouse");
  await participant.page.getByTestId("command-send").click();
  await expect(participant.page.getByTestId("command-status")).toHaveText("Sent to Songwriter — starting now.");

  for (const room of [participant, watcher]) {
    await expect(room.page.locator('[data-kind="lyric"]').filter({ hasText: "As Ada asked — “write about a lighthouse”" })).toHaveCount(1, {
      timeout: 20_000,
    });
    await expect(room.page.getByTestId("feed-entry").filter({ hasText: "told Songwriter" })).toBeVisible();
  }

  // An unknown agent is refused with the room's agents listed.
  await input.fill("@Drummer louder");
  await participant.page.getByTestId("command-send").click();
  await expect(participant.page.getByTestId("command-status")).toContainText('There is no agent "Drummer" in this room. Agents: @Idea Weaver');

  // The Storyteller's run ends with a finding for the team; the second tab has it within a second.
  for (const room of [participant, watcher]) await room.page.getByTestId("tab-findings").click();
  await participant.page.getByTestId("agent-storyteller").getByTestId("agent-start").click();
  await expect(participant.page.getByTestId("finding")).not.toHaveCount(0, { timeout: 30_000 });
  const seen = await participant.page.getByTestId("finding").count();
  await expect(watcher.page.getByTestId("finding")).toHaveCount(seen, { timeout: 1_000 });

  // The board filters by severity and by agent: each filter lists exactly the findings that match it.
  const board = watcher.page;
  const listed = board.getByTestId("finding");
  await participant.page.getByTestId("agent-scene-painter").getByTestId("agent-start").click();
  for (const author of ["Storyteller", "Scene Painter"]) {
    await expect(listed.filter({ has: board.locator(".finding__who", { hasText: author }) })).not.toHaveCount(0, { timeout: 30_000 });
  }
  // Once every run has ended (a help request may have started another), the board holds still.
  await expect
    .poll(async () => {
      const room = (await (await board.request.get(`/api/rooms/${roomId}`)).json()) as { runs: { status: string }[] };
      return room.runs.filter((run) => run.status === "queued" || run.status === "running").length;
    }, { timeout: 30_000 })
    .toBe(0);
  const posted = ((await (await board.request.get(`/api/rooms/${roomId}/findings?limit=100`)).json()) as { findings: unknown[] }).findings;
  await expect(listed).toHaveCount(posted.length);
  const all = await listed.evaluateAll((items) =>
    items.map((item) => ({ severity: item.getAttribute("data-severity"), agent: item.querySelector(".finding__who")?.textContent })),
  );
  for (const severity of ["low", "medium", "high"]) {
    await board.getByTestId(`findings-severity-${severity}`).click();
    await expect(board.getByTestId(`findings-severity-${severity}`)).toHaveAttribute("aria-pressed", "true");
    await expect(listed).toHaveCount(all.filter((finding) => finding.severity === severity).length);
    for (const shown of await listed.all()) await expect(shown).toHaveAttribute("data-severity", severity);
  }
  await board.getByTestId("findings-severity-all").click();
  await expect(listed).toHaveCount(all.length);
  await board.getByTestId("findings-agent").selectOption({ label: "Storyteller" });
  const byStoryteller = all.filter((finding) => finding.agent === "Storyteller");
  expect(byStoryteller.length).toBeLessThan(all.length);
  await expect(listed).toHaveCount(byStoryteller.length);
  await expect(listed.locator(".finding__who")).toHaveText(byStoryteller.map(() => "Storyteller"));
  // Both at once.
  const severity = byStoryteller[0]!.severity!;
  await board.getByTestId(`findings-severity-${severity}`).click();
  await expect(listed).toHaveCount(byStoryteller.filter((finding) => finding.severity === severity).length);
  // The filter is kept while the feed is shown.
  await board.getByTestId("tab-activity").click();
  await board.getByTestId("tab-findings").click();
  await expect(board.getByTestId("findings-agent").locator("option:checked")).toHaveText("Storyteller");
  await expect(board.getByTestId(`findings-severity-${severity}`)).toHaveAttribute("aria-pressed", "true");
  await board.getByTestId("findings-agent").selectOption("all");
  await board.getByTestId("findings-severity-all").click();
  await expect(listed).toHaveCount(all.length);
  // Nothing older than what the page holds: asking for more says so.
  await board.getByTestId("findings-older").click();
  await expect(board.getByTestId("findings-no-older")).toBeVisible();
  await expect(listed).toHaveCount(all.length);

  // A finding leads to its entry in the feed.
  await watcher.page.getByTestId("finding").first().locator("button").click();
  await expect(watcher.page.getByTestId("tab-activity")).toHaveAttribute("aria-selected", "true");
  await expect(watcher.page.locator(".feed__entry--focused")).toHaveCount(1);
  await expect(watcher.page.locator(".feed__entry--focused")).toContainText("finding");

  // The Storyteller's knowledge is on its card.
  await watcher.page.getByTestId("agent-storyteller").getByTestId("agent-knowledge").click();
  await expect(watcher.page.getByTestId("vault-insights")).toContainText("pieces about", { timeout: 10_000 });
  await expect(watcher.page.getByTestId("vault-clear")).toHaveCount(0);

  // An admin can clear it.
  expect((await watcher.page.request.post("/api/admin/session", { data: { token: E2E_ADMIN_TOKEN } })).status()).toBe(200);
  await watcher.page.reload();
  await watcher.page.getByTestId("agent-storyteller").getByTestId("agent-knowledge").click();
  await expect(watcher.page.getByTestId("vault-insights")).toBeVisible();
  watcher.page.once("dialog", (dialog) => void dialog.accept());
  await watcher.page.getByTestId("vault-clear").click();
  await expect(watcher.page.getByTestId("vault-drawer")).toContainText("Nothing yet");
  await expect(watcher.page.getByTestId("feed-entry").filter({ hasText: "cleared Storyteller's knowledge" })).toBeVisible();
});
