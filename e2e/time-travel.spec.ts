import fs from "node:fs";
import type { Page } from "@playwright/test";
import { E2E_ADMIN_TOKEN } from "./support/constants";
import { expect, test } from "./support/fixtures";
import { type RoomPage, createRoomViaApi } from "./support/room-page";

const timeline = (page: Page) => ({
  position: page.getByTestId("timeline-position"),
  slider: page.getByTestId("timeline-slider"),
  live: page.getByTestId("timeline-live"),
});

/** The moment the page shows: an event's number, or "live". */
async function shown(page: Page): Promise<string> {
  return (await page.getByTestId("timeline-position").getAttribute("data-shown")) ?? "";
}

/** Goes to event `seq` from the keyboard, as a person can: Home, then the arrow keys. */
async function scrubTo(page: Page, seq: number) {
  const { slider } = timeline(page);
  await slider.focus();
  await page.keyboard.press("Home");
  for (let step = 1; step < seq; step++) await page.keyboard.press("ArrowRight");
  await expect.poll(() => shown(page)).toBe(String(seq));
}

/** A Creative canvas room with the Songwriter's and the Scene Painter's work and a person's notes, as the demo room has after a while. */
async function workedRoom(openRoom: (roomId: string, options?: { name?: string }) => Promise<RoomPage>, baseURL: string) {
  const roomId = await createRoomViaApi(baseURL, "Rain on the window");
  const ada = await openRoom(roomId, { name: "Ada" });
  const note = await ada.addNote();
  await ada.writeInNote(note, "Rain on the glass");
  await ada.page.getByTestId("agent-songwriter").getByTestId("agent-prompt").click();
  await ada.page.getByTestId("agent-prompt-input").fill("Write a short verse about rain on a city window at night.");
  await ada.page.getByTestId("agent-prompt-start").click();
  await expect(ada.page.locator('[data-kind="scene"]')).toHaveCount(2, { timeout: 40_000 });
  for (const persona of ["songwriter", "scene-painter"]) {
    await expect(ada.page.getByTestId(`agent-${persona}`).getByTestId("agent-status")).toHaveText("idle", { timeout: 30_000 });
  }
  return { roomId, ada };
}

test("scrubbing a room back and forth shows every panel as it was, new events are counted, and Live comes back", async ({
  openRoom,
  baseURL,
}) => {
  const { roomId, ada } = await workedRoom(openRoom, baseURL!);
  const watcher = await openRoom(roomId);
  const page = watcher.page;
  const nodesNow = await watcher.nodes().count();
  expect(nodesNow).toBeGreaterThanOrEqual(5);
  await expect(timeline(page).position).toHaveText(/^Live · \d+ events$/);
  await expect(page.getByTestId("timeline").locator(".timeline__mark--run").first()).toBeAttached();

  // Back to the room's first events — its creation, Ada taking a seat: an empty canvas, two entries in the feed.
  await scrubTo(page, 2);
  await expect(timeline(page).position).toHaveText(/^As it was after #2 of \d+/);
  await expect(watcher.notesHeld()).toHaveCount(0);
  await expect(page.getByTestId("feed-entry")).toHaveCount(2);
  await expect(page).toHaveURL(new RegExp(`/rooms/${roomId}\\?at=2$`));
  await page.screenshot({ path: test.info().outputPath("timeline-past.png") });

  // Forward to the end, back to the middle of the Songwriter's run, one event further back.
  const total = Number(await timeline(page).slider.getAttribute("max"));
  await page.keyboard.press("End");
  await expect.poll(() => shown(page)).toBe(String(total));
  await expect(watcher.notesHeld()).toHaveCount(nodesNow);
  const firstLyric = Number(await page.locator('[data-testid="feed-entry"][data-type="node.created"]').nth(1).getAttribute("data-seq"));
  await scrubTo(page, firstLyric);
  await expect(watcher.notesHeld()).toHaveCount(2);
  await expect(page.locator('[data-kind="scene"]')).toHaveCount(0);
  await expect(page.getByTestId("agent-songwriter").getByTestId("agent-status")).toHaveText(/running|typing/);
  await page.keyboard.press("ArrowLeft");
  await expect.poll(() => shown(page)).toBe(String(firstLyric - 1));
  await expect(watcher.notesHeld()).toHaveCount(1);

  // The room goes on meanwhile: a new note is counted on the Live button, and not drawn in the past.
  const later = await ada.addNote();
  await expect(page.getByTestId("timeline-arrived")).toHaveText("+1");
  await expect(watcher.node(later)).toHaveCount(0);
  await timeline(page).live.click();
  await expect(timeline(page).position).toHaveText(/^Live/);
  await expect(watcher.node(later)).toBeVisible();
  await expect(page).toHaveURL(new RegExp(`/rooms/${roomId}$`));

  // "Show the room at this moment" from the feed.
  const entry = page.getByTestId("feed-entry").nth(4);
  const entrySeq = await entry.getAttribute("data-seq");
  await entry.hover();
  await entry.getByTestId("show-moment").click();
  await expect.poll(() => shown(page)).toBe(entrySeq);
});

test("playing at 16× replays the room and goes live at its end; a link opens a moment, also for an admin's event log", async ({
  openRoom,
  baseURL,
  page,
}) => {
  const { roomId, ada } = await workedRoom(openRoom, baseURL!);
  const watcher = await openRoom(roomId);
  await watcher.page.getByTestId("timeline-play-16").click();
  await expect(watcher.page.getByTestId("timeline-pause")).toBeVisible();
  // It starts from the room's first event and moves forward on its own (on a fast page it may
  // already have played to the end, and be live, when the position is first read).
  await expect
    .poll(async () => {
      const position = await shown(watcher.page);
      return position === "live" ? Number.POSITIVE_INFINITY : Number(position);
    })
    .toBeGreaterThan(5);
  await expect(watcher.nodes().first()).toBeVisible();
  await expect(timeline(watcher.page).position).toHaveText(/^Live/, { timeout: 45_000 });
  await expect(watcher.page.getByTestId("timeline-play-16")).toBeVisible();

  const moment = await openRoom(roomId);
  await moment.page.goto(`/rooms/${roomId}?at=4`);
  await expect.poll(() => shown(moment.page)).toBe("4");
  await expect(moment.page.getByTestId("feed-entry")).toHaveCount(4);
  await expect(moment.nodes()).toHaveCount(1);

  await page.goto("/admin");
  await page.getByTestId("admin-token-input").fill(E2E_ADMIN_TOKEN);
  await page.getByTestId("admin-sign-in-submit").click();
  await expect(page.getByTestId("admin-overview")).toBeVisible();
  await page.goto(`/admin/rooms/${roomId}`);
  const row = page.getByTestId("event-row").first();
  const seq = (await row.locator(".admin-event__seq").textContent())!.slice(1);
  await expect(row.getByTestId("show-moment")).toHaveAttribute("href", `/rooms/${roomId}?at=${seq}`);
  await row.getByTestId("show-moment").click();
  await expect.poll(() => shown(page)).toBe(seq);
  await expect(ada.page.getByTestId("timeline-live")).toHaveAttribute("aria-pressed", "true");
});

/** A room where Ada wrote three notes: events 3–4, 5–6 and 7–8 add and write each. */
async function notesRoom(openRoom: (roomId: string, options?: { name?: string }) => Promise<RoomPage>, baseURL: string) {
  const roomId = await createRoomViaApi(baseURL, "Rain on the window");
  const ada = await openRoom(roomId, { name: "Ada" });
  for (const text of ["Rain on the glass", "Neon in puddles", "A cold cup of tea"]) {
    const note = await ada.addNote();
    await ada.writeInNote(note, text);
  }
  return { roomId, ada };
}

test("a seated person continues the room from a moment in a new room and runs an agent there; each room lists the other", async ({
  openRoom,
  baseURL,
}) => {
  const { roomId, ada } = await notesRoom(openRoom, baseURL!);
  const at = 6;
  await ada.page.goto(`/rooms/${roomId}?at=${at}`);
  await expect.poll(() => shown(ada.page)).toBe(String(at));
  const nodesThen = await ada.nodes().count();
  expect(nodesThen).toBe(2);

  await ada.page.getByTestId("timeline-fork").click();
  await ada.page.getByTestId("fork-title").fill("Rain, take two");
  await ada.page.getByTestId("fork-confirm").click();
  await expect(ada.page).not.toHaveURL(new RegExp(roomId));
  await expect(ada.page.getByTestId("connection-status")).toHaveAttribute("data-state", "live");
  await expect(ada.page.getByRole("heading", { name: "Rain, take two" })).toBeVisible();
  await expect(ada.page.getByTestId("seat-name")).toContainText("Ada");
  await expect(ada.nodes()).toHaveCount(nodesThen);
  await expect(ada.page.getByTestId("timeline-origin")).toContainText(`“Rain on the window” at #${at}`);
  await ada.page.screenshot({ path: test.info().outputPath("fork.png") });

  // The fork's Songwriter carries on.
  await ada.page.getByTestId("agent-songwriter").getByTestId("agent-prompt").click();
  await ada.page.getByTestId("agent-prompt-input").fill("Write the second verse.");
  await ada.page.getByTestId("agent-prompt-start").click();
  await expect.poll(() => ada.nodes().count(), { timeout: 40_000 }).toBeGreaterThan(nodesThen);
  await expect(ada.page.getByTestId("agent-songwriter").getByTestId("agent-status")).toHaveText("idle", { timeout: 40_000 });

  // The origin lists it.
  const origin = await openRoom(roomId);
  await origin.page.getByTestId("timeline-forks").click();
  await expect(origin.page.getByTestId("timeline-forks")).toContainText("Rain, take two");
});

test("a room shared as a file opens elsewhere as a read-only replay that plays the same; a changed file is refused", async ({
  openRoom,
  baseURL,
  page,
}) => {
  const { roomId, ada } = await notesRoom(openRoom, baseURL!);
  const at = 5;
  await ada.page.goto(`/rooms/${roomId}?at=${at}`);
  await expect.poll(() => shown(ada.page)).toBe(String(at));
  const nodesThen = await ada.nodes().count();
  expect(nodesThen).toBe(2);

  const download = ada.page.waitForEvent("download");
  await ada.page.getByTestId("timeline-export").click();
  const file = await (await download).path();
  expect(fs.readFileSync(file, "utf8").split("\n")[0]).toContain('"format":"parley-room-log"');
  await page.goto("/");
  await page.getByTestId("replay-file").setInputFiles(file);
  await page.getByTestId("replay-submit").click();
  // The replay room opens once it has read its whole log.
  await expect(page.getByTestId("timeline-replay")).toContainText("Replay of “Rain on the window”", { timeout: 15_000 });
  await expect(page.getByTestId("timeline-live")).toHaveCount(0);
  // Nobody takes a seat in a replay: the header says it is read-only instead of offering one.
  await expect(page.getByTestId("replay-read-only")).toBeVisible();
  await expect(page.getByTestId("take-seat-form")).toHaveCount(0);
  await expect(page.locator(".react-flow__node")).toHaveCount(3);
  await expect(page.locator(".react-flow__node", { hasText: "A cold cup of tea" })).toBeVisible();
  const momentUrl = new URL(page.url());
  momentUrl.searchParams.set("at", String(at));
  await page.goto(momentUrl.toString());
  await expect.poll(() => shown(page)).toBe(String(at));
  await expect(page.locator(".react-flow__node")).toHaveCount(nodesThen);
  await page.screenshot({ path: test.info().outputPath("replay.png") });

  // A changed file is refused with the line at fault.
  const lines = fs.readFileSync(file, "utf8").split("\n");
  const changed = JSON.parse(lines[2]!);
  changed.event.agent_name = "Mallory";
  lines[2] = JSON.stringify(changed);
  await page.goto("/");
  await page
    .getByTestId("replay-file")
    .setInputFiles({ name: "changed.parley.jsonl", mimeType: "application/x-ndjson", buffer: Buffer.from(lines.join("\n")) });
  await page.getByTestId("replay-submit").click();
  await expect(page.getByTestId("replay-error")).toContainText("Line 3:");
});

test("in the past the canvas draws only the notes in view, and Tab and the arrow keys still reach every note, bringing it into view", async ({
  openRoom,
  baseURL,
}) => {
  const roomId = await createRoomViaApi(baseURL!, "Far apart");
  const ada = await openRoom(roomId, { name: "Ada" });
  // Three notes on one row, far apart: in reading order, left to right.
  const ids: string[] = [];
  for (const x of [0, 3000, 6000]) {
    const response = await ada.page.request.post(`/api/rooms/${roomId}/nodes`, { data: { text: `At ${x}`, x, y: 0 } });
    expect(response.status()).toBe(201);
    ids.push(((await response.json()) as { node: { id: string } }).node.id);
  }
  const watcher = await openRoom(roomId);
  const page = watcher.page;
  // So far apart that no title reads at fit view, the room opens in lanes; what is checked here is the room as placed.
  await expect(page.getByTestId("canvas")).toHaveAttribute("data-arrange", "lanes");
  await page.getByTestId("arrange-lanes").click();
  await expect(page.getByTestId("canvas")).toHaveAttribute("data-arrange", "free");
  await expect(watcher.nodes()).toHaveCount(3);
  await scrubTo(page, Number(await timeline(page).slider.getAttribute("max")));
  // Zoomed in on the middle note, the other two are out of view and not drawn.
  await watcher.fitView();
  for (let step = 0; step < 8; step++) await page.locator(".react-flow__controls-zoomin").click();
  await watcher.viewSettled();
  const note = (id: string) => page.locator(`.react-flow__node[data-id="${id}"]`);
  await expect(note(ids[1]!)).toBeInViewport();
  await expect(note(ids[2]!)).toHaveCount(0);
  await expect(note(ids[0]!)).toHaveCount(0);

  await note(ids[1]!).focus();
  await page.keyboard.press("Tab");
  await expect(note(ids[2]!)).toBeFocused();
  await expect(note(ids[2]!)).toBeInViewport();
  await page.keyboard.press("ArrowLeft");
  await expect(note(ids[1]!)).toBeFocused();
  await page.keyboard.press("Shift+Tab");
  await expect(note(ids[0]!)).toBeFocused();
  await expect(note(ids[0]!)).toBeInViewport();
});
