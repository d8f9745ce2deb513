import { expect, test } from "./support/fixtures";
import { E2E_ADMIN_TOKEN } from "./support/constants";
import { configureRoom, createRoomViaApi } from "./support/room-page";

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
  await expect(participant.page.getByTestId("command-status")).toContainText(
    'There is no agent "Drummer" in this room. Agents: @Idea Weaver',
  );

  // The Storyteller's run ends with a finding for the team (a crowded canvas without a theme is
  // worth one); the second tab has it within a second.
  for (let index = 0; index < 12; index++) {
    const added = await participant.page.request.post(`/api/rooms/${roomId}/nodes`, {
      data: { text: `Fragment ${index}: a harbour at night`, near: { x: 1200, y: 0 } },
    });
    expect(added.status()).toBe(201);
  }
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
    .poll(
      async () => {
        const room = (await (await board.request.get(`/api/rooms/${roomId}`)).json()) as { runs: { status: string }[] };
        return room.runs.filter((run) => run.status === "queued" || run.status === "running").length;
      },
      { timeout: 30_000 },
    )
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
  await expect(watcher.page.getByTestId("vault-insights")).toContainText("pieces hold together", { timeout: 10_000 });
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

test("/focus from the bar sends plain messages to that agent, whose card counts those waiting for it", async ({ openRoom, baseURL }) => {
  const roomId = await createRoomViaApi(baseURL!, "Keeper's log");
  // The Storyteller asks the room a question early in its run and waits for a person's answer: messages sent
  // meanwhile wait for its next step.
  await configureRoom(baseURL!, roomId, { broadcast: "human", broadcast_sensitivity: "high", broadcast_timeout: 120 });
  const ada = await openRoom(roomId, { name: "Ada" });
  const input = ada.page.getByTestId("command-input");
  const status = ada.page.getByTestId("command-status");
  // The bar takes the whole line up to the 2,000 characters a message may have, @Name included.
  await expect(input).toHaveAttribute("maxlength", "2000");

  await input.fill("/focus story");
  await expect(ada.page.getByTestId("command-suggestions")).toContainText("Storyteller");
  await input.press("Tab");
  await expect(input).toHaveValue("/focus Storyteller");
  await ada.page.getByTestId("command-send").click();
  await expect(status).toHaveText("Plain messages now go to Storyteller.");
  await expect(ada.page.locator(".command-bar__focus")).toHaveText("→ Storyteller");

  const card = ada.page.getByTestId("agent-storyteller");
  await card.getByTestId("agent-start").click();
  await expect(ada.page.getByTestId("human-question")).toBeVisible({ timeout: 15_000 });
  await expect(card.getByTestId("agent-waiting")).toHaveCount(0);

  // A plain message goes to the focus; one naming the Storyteller joins it.
  await input.fill("write about the keeper's last night");
  await ada.page.getByTestId("command-send").click();
  await expect(status).toHaveText("Sent to Storyteller — in its next step.");
  await expect(card.getByTestId("agent-waiting")).toHaveText("1 waiting");
  await input.fill("@Storyteller and the storm that ends it");
  await ada.page.getByTestId("command-send").click();
  await expect(card.getByTestId("agent-waiting")).toHaveText("2 waiting");
  await expect(ada.page.getByTestId("pending-command")).toHaveCount(2);

  // Once the room has answered, the Storyteller reads both in its next step and acts on each.
  await ada.page.getByTestId("question-answer").fill("the one who stays");
  await ada.page.getByTestId("question-send").click();
  await expect(card.getByTestId("agent-waiting")).toHaveCount(0, { timeout: 15_000 });
  await expect(ada.page.getByTestId("pending-command")).toHaveCount(0);
  for (const asked of ["write about the keeper's last night", "and the storm that ends it"]) {
    await expect(ada.page.locator('[data-kind="story"]').filter({ hasText: `As Ada asked — “${asked}”` })).toHaveCount(1, {
      timeout: 20_000,
    });
  }
});

test("a finding stands out on the board by how serious it is, and opening it brings its feed entry and its notes into view", async ({
  openRoom,
  baseURL,
}) => {
  const roomId = await createRoomViaApi(baseURL!, "A crowded canvas");
  const ada = await openRoom(roomId, { name: "Ada" });
  // Twelve pieces and no shared theme: the Songwriter's run suggests one (a suggestion, not an alarm).
  for (let index = 0; index < 12; index++) {
    const added = await ada.page.request.post(`/api/rooms/${roomId}/nodes`, {
      data: { text: `Fragment ${index}: rain on the glass`, near: { x: 1200, y: 0 } },
    });
    expect(added.status()).toBe(201);
  }
  await ada.page.getByTestId("tab-findings").click();
  await ada.page.getByTestId("agent-songwriter").getByTestId("agent-start").click();
  // The teammate it asks for a painting may flag the same before it sees the Songwriter's finding: wait for every run.
  await expect
    .poll(
      async () => {
        const room = (await (await ada.page.request.get(`/api/rooms/${roomId}`)).json()) as { runs: { status: string }[] };
        return room.runs.filter((run) => run.status === "queued" || run.status === "running").length;
      },
      { timeout: 30_000 },
    )
    .toBe(0);
  const flagged = ada.page
    .locator('[data-testid="finding"][data-severity="medium"]')
    .filter({ has: ada.page.locator(".finding__who", { hasText: "Songwriter" }) });
  await expect(flagged).toHaveCount(1);
  await expect(flagged).toContainText(/The canvas holds \d+ pieces but no shared theme/);
  // Marked in amber: its severity badge and the stripe along its side.
  await expect(flagged.locator(".severity")).toHaveText("medium");
  await expect(flagged).toHaveCSS("border-left-color", "rgb(240, 140, 0)");
  const low = ada.page.locator('[data-testid="finding"][data-severity="low"]');
  for (const other of await low.all()) await expect(other).not.toHaveCSS("border-left-color", "rgb(240, 140, 0)");

  const findings = (await (await ada.page.request.get(`/api/rooms/${roomId}/findings?severity=medium&agent=songwriter`)).json()) as {
    findings: { nodeIds: string[] }[];
  };
  const nodeIds = findings.findings[0]!.nodeIds;
  expect(nodeIds.length).toBeGreaterThan(0);
  const notes = nodeIds.map((nodeId) => ada.page.getByTestId(`note-${nodeId}`));

  // The feed moves on well past the finding: forty edits of a note of Ada's.
  const scratch = await ada.page.request.post(`/api/rooms/${roomId}/nodes`, { data: { text: "Scratch", near: { x: -1200, y: 0 } } });
  expect(scratch.status()).toBe(201);
  const scratchId = ((await scratch.json()) as { node: { id: string } }).node.id;
  for (let edit = 1; edit <= 40; edit++) {
    expect((await ada.page.request.patch(`/api/rooms/${roomId}/nodes/${scratchId}`, { data: { text: `Scratch ${edit}` } })).status()).toBe(
      200,
    );
  }
  await ada.page.getByTestId("tab-activity").click();
  const feed = ada.page.getByTestId("feed-entry");
  await expect(feed.last()).toContainText("Scratch 40");
  const entry = feed
    .filter({ hasText: "posted a medium-severity finding" })
    .filter({ has: ada.page.locator(".feed__line strong", { hasText: "Songwriter" }) });
  // Out of view: scrolled past, or not drawn at all, as the feed draws its newest entries first.
  expect(await entry.count()).toBeLessThanOrEqual(1);
  if ((await entry.count()) === 1) await expect(entry).not.toBeInViewport();
  // And the view is elsewhere on the canvas: panned until none of the finding's notes shows.
  await ada.page.getByTestId("tab-findings").click();
  await ada.viewSettled();
  for (let pan = 0; pan < 3; pan++) await ada.panLeft();
  for (const note of notes) await expect(note).not.toBeInViewport();

  // Opening the finding brings its entry in the feed and its notes on the canvas into view.
  await expect(ada.page.locator(".note--highlighted")).toHaveCount(0);
  await flagged.locator("button").click();
  await expect(ada.page.getByTestId("tab-activity")).toHaveAttribute("aria-selected", "true");
  await expect(entry).toHaveCount(1);
  await expect(entry).toHaveClass(/feed__entry--focused/);
  await expect(entry).toBeInViewport();
  for (const note of notes) {
    await expect(note).toHaveClass(/note--highlighted/);
    await expect(note).toBeInViewport();
  }
  await expect(ada.page.locator(".note--highlighted")).toHaveCount(nodeIds.length);
});
