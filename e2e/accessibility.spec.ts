import type { Page } from "@playwright/test";
import { expectAccessible } from "./support/axe";
import { E2E_ADMIN_TOKEN } from "./support/constants";
import { expect, test } from "./support/fixtures";
import { RoomPage, configureRoom, createRoomViaApi } from "./support/room-page";
import { watchViolations } from "./support/watch-violations";

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
const NOTE_NAME = /^(Note|Lyric|Scene|Idea|Story|Theme|Group|Brief|Code): .+, by .+$/;

/** Opens a room in a fresh context of its own, watched for console errors, seated when named. */
async function openWatched(page: Page, roomId: string, name?: string) {
  const violations = await watchViolations(page);
  const room = new RoomPage(page);
  await room.goto(roomId);
  if (name) await room.takeSeat(name);
  return { room, violations };
}

/** The Songwriter writes and asks the Scene Painter: a room with notes, a link and a workflow. */
async function letTheSongwriterWork(room: RoomPage) {
  await room.page.getByTestId("agent-songwriter").getByTestId("agent-start").click();
  await expect(room.page.getByTestId("feed-entry").filter({ hasText: "reacted to Songwriter's contribution" }).first()).toBeVisible({
    timeout: 40_000,
  });
  await expect(room.page.getByTestId("agent-scene-painter").getByTestId("agent-status")).toHaveText("idle", { timeout: 30_000 });
  await expect(room.page.locator(".react-flow__edge").first()).toBeAttached({ timeout: 20_000 });
}

test.describe("at 1440 × 900", () => {
  test("home, a live room, its trace and every admin page pass axe with nothing serious, and none logs an error", async ({
    page,
    baseURL,
  }) => {
    test.setTimeout(180_000);
    const violations = await watchViolations(page);
    await page.goto("/");
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    await expectAccessible(page, "the home page");

    const roomId = await createRoomViaApi(baseURL!, "Rain on the window");
    const room = new RoomPage(page);
    await room.goto(roomId);
    await room.takeSeat("Ada");
    await letTheSongwriterWork(room);
    await expectAccessible(page, "a live room");

    // "trace" shows without hovering; the trace is titled by its workflow, explains its attempts
    // and closes on Escape, giving the focus back.
    const entry = page.getByTestId("feed-entry").filter({ hasText: "reacted to Songwriter's contribution" }).first();
    const trace = entry.getByTestId("trace-workflow");
    await expect(trace).toBeVisible();
    await trace.click();
    const dialog = page.getByTestId("workflow-trace");
    await expect(dialog).toBeVisible();
    await expect(page.getByTestId("trace-title")).toHaveText(/^Songwriter: .+/);
    await expect(page.getByTestId("trace-title")).not.toHaveText(/_[0-9a-f]{12}_/);
    await expect(page.getByTestId("trace-attempts")).toHaveText(/^\d+ attempts?: (one per run, none tried again|.*tried again.*)$/);
    await expect(dialog.getByTestId("trace-message").first()).toBeVisible();
    await expectAccessible(page, "a workflow's trace");
    await page.keyboard.press("Escape");
    await expect(dialog).toBeHidden();
    await expect(trace).toBeFocused();

    await page.goto("/admin");
    await page.getByTestId("admin-token-input").fill(E2E_ADMIN_TOKEN);
    await page.getByTestId("admin-sign-in-submit").click();
    await expect(page.getByTestId("admin-overview")).toBeVisible();
    const runs = await page.request.get(`/api/admin/runs?room=${roomId}`);
    const runId = ((await runs.json()) as { runs: { id: string }[] }).runs[0]?.id;
    expect(runId).toBeTruthy();
    for (const [path, testId] of [
      ["/admin", "admin-overview"],
      ["/admin/runs", "admin-runs"],
      [`/admin/runs/${runId}`, "admin-run"],
      ["/admin/workflows", "admin-workflows"],
      ["/admin/rooms", "admin-rooms"],
      [`/admin/rooms/${roomId}`, "admin-room-detail"],
      ["/admin/instance", "admin-instance"],
      ["/admin/audit", "admin-audit"],
    ] as const) {
      await page.goto(path);
      await expect(page.getByTestId(testId)).toBeVisible();
      await expectAccessible(page, path);
    }
    expect(violations).toEqual({ csp: [], errors: [] });
  });

  test("the keyboard reaches the command bar first, reads notes and links by name, moves between notes and scrolls the feed", async ({
    page,
    baseURL,
  }) => {
    test.setTimeout(120_000);
    const roomId = await createRoomViaApi(baseURL!, "Keys only");
    const { room, violations } = await openWatched(page, roomId, "Ada");
    await letTheSongwriterWork(room);
    // Enough activity for the feed to scroll: a note written over forty times.
    const scratch = await page.request.post(`/api/rooms/${roomId}/nodes`, { data: { text: "Scratch", near: { x: -900, y: 0 } } });
    const scratchId = ((await scratch.json()) as { node: { id: string } }).node.id;
    for (let edit = 1; edit <= 40; edit++) {
      expect((await page.request.patch(`/api/rooms/${roomId}/nodes/${scratchId}`, { data: { text: `Scratch ${edit}` } })).status()).toBe(
        200,
      );
    }
    await expect(page.getByTestId("feed-entry").last()).toContainText("Scratch 40");

    // Every note and link is named for a person; none by an id.
    const names = await page
      .locator(".react-flow__node")
      .evaluateAll((nodes) => nodes.map((node) => node.getAttribute("aria-label") ?? ""));
    expect(names.length).toBeGreaterThan(2);
    for (const name of names) {
      expect(name).toMatch(NOTE_NAME);
      expect(name).not.toMatch(UUID);
    }
    const links = await page
      .locator(".react-flow__edge")
      .evaluateAll((edges) => edges.map((edge) => edge.getAttribute("aria-label") ?? ""));
    expect(links.length).toBeGreaterThan(0);
    for (const name of links) expect(name).toMatch(/^link: .+'s \w+ → .+'s \w+(, .+)?$/);
    // Links are read, not visited: Tab goes from note to note.
    expect(await page.locator(".react-flow__edge[tabindex]").count()).toBe(0);

    // The first Tab stop of a freshly opened page skips to the command bar.
    await room.goto(roomId);
    await page.keyboard.press("Tab");
    const skip = page.getByTestId("skip-link");
    await expect(skip).toBeFocused();
    await expect(skip).toHaveText("Skip to the command bar");
    await expect(skip).toBeInViewport();
    await page.keyboard.press("Enter");
    await expect(page.getByTestId("command-input")).toBeFocused();

    // The arrow keys move from a focused note to the next note that way, which shows a ring.
    await page.getByTestId("tab-activity").click();
    await room.fitView();
    await room.viewSettled();
    const first = page.locator(".react-flow__node").first();
    await first.focus();
    const before = await first.getAttribute("data-id");
    let moved = false;
    for (const key of ["ArrowRight", "ArrowDown", "ArrowLeft", "ArrowUp"]) {
      await page.keyboard.press(key);
      const now = await page.evaluate(() => document.activeElement?.getAttribute("data-id"));
      if (now && now !== before) {
        moved = true;
        break;
      }
    }
    expect(moved, "an arrow key moves the focus from a note to another").toBe(true);
    const ring = await page.evaluate(() => {
      const style = getComputedStyle(document.activeElement!);
      return { style: style.outlineStyle, width: Number.parseFloat(style.outlineWidth) };
    });
    expect(ring.style).not.toBe("none");
    expect(ring.width).toBeGreaterThanOrEqual(2);

    // The feed takes the focus and scrolls from the keyboard.
    const feed = page.getByTestId("feed");
    await feed.focus();
    await expect(feed).toBeFocused();
    await page.keyboard.press("Home");
    await expect.poll(() => feed.evaluate((element) => element.scrollTop)).toBe(0);
    await page.keyboard.press("PageDown");
    await expect.poll(() => feed.evaluate((element) => element.scrollTop)).toBeGreaterThan(0);
    expect(violations).toEqual({ csp: [], errors: [] });
  });

  test("200 notes at fit view: every title at 11 px or more on screen, no two notes overlapping, link labels hidden", async ({
    page,
    baseURL,
  }, testInfo) => {
    test.setTimeout(240_000);
    const roomId = await createRoomViaApi(baseURL!, "Two hundred notes");
    const seat = await page.request.post(`/api/rooms/${roomId}/seat`, { data: { displayName: "Writer" } });
    expect(seat.status()).toBe(201);
    const anchors = [
      { x: -760, y: 0 },
      { x: 0, y: 0 },
      { x: 760, y: 0 },
      { x: -380, y: 900 },
      { x: 380, y: 900 },
    ];
    const ids: string[] = [];
    for (let index = 0; index < 200; index++) {
      const text = `Idea ${index}: ${"harbour lantern tide drift signal copper ember"
        .split(" ")
        .slice(0, 2 + (index % 5))
        .join(" ")}`;
      const response = await page.request.post(`/api/rooms/${roomId}/nodes`, { data: { text, near: anchors[index % anchors.length] } });
      expect(response.status()).toBe(201);
      ids.push(((await response.json()) as { node: { id: string } }).node.id);
    }
    for (let index = 1; index < 200; index += 4) {
      const response = await page.request.post(`/api/rooms/${roomId}/edges`, {
        data: { sourceId: ids[index - 1], targetId: ids[index], label: "builds on" },
      });
      expect(response.status()).toBe(201);
    }

    const { room, violations } = await openWatched(page, roomId);
    // Too crowded to read as placed, the room opens in lanes; what is read here is the room as placed.
    await expect(page.getByTestId("canvas")).toHaveAttribute("data-arrange", "lanes");
    await page.getByTestId("arrange-lanes").click();
    await expect(page.getByTestId("canvas")).toHaveAttribute("data-arrange", "free");
    await expect(room.nodes()).toHaveCount(200);
    await room.fitView();
    await room.viewSettled();
    await expect(page.getByTestId("canvas")).toHaveAttribute("data-zoom", "far");
    const zoom = await page.locator(".react-flow__viewport").evaluate((element) => new DOMMatrix(getComputedStyle(element).transform).a);
    expect(zoom).toBeLessThan(0.6);

    const titles = await page.locator(".note__title").evaluateAll((elements) =>
      elements.map((element) => ({
        size: Number.parseFloat(getComputedStyle(element).fontSize),
        shown: getComputedStyle(element).display,
      })),
    );
    expect(titles).toHaveLength(200);
    for (const title of titles) {
      expect(title.shown).toBe("block");
      expect(title.size * zoom).toBeGreaterThanOrEqual(11);
    }
    await expect(page.getByTestId("edge-label").first()).toBeHidden();

    const rects = await room.nodes().evaluateAll((elements) =>
      elements.map((element) => {
        const { x, y, width, height } = element.getBoundingClientRect();
        return { x, y, width, height };
      }),
    );
    const overlapping: string[] = [];
    for (const [i, a] of rects.entries()) {
      for (const [j, b] of rects.entries()) {
        if (j <= i) continue;
        if (a.x + 0.5 < b.x + b.width && b.x + 0.5 < a.x + a.width && a.y + 0.5 < b.y + b.height && b.y + 0.5 < a.y + a.height) {
          overlapping.push(`${i}×${j}`);
        }
      }
    }
    expect(overlapping).toEqual([]);
    await page.screenshot({ path: testInfo.outputPath("canvas-200-fit.png") });
    await page.screenshot({ path: "test-results/screenshots/canvas-200-fit.png" });

    // Zoomed in to reading, a note shows its text again and links their labels.
    const canvas = page.getByTestId("canvas");
    for (let step = 0; step < 20 && (await canvas.getAttribute("data-zoom")) === "far"; step++) {
      await page.locator(".react-flow__controls-zoomin").click();
      await room.viewSettled();
    }
    await expect(canvas).toHaveAttribute("data-zoom", "near");
    await expect(page.locator(".note__title").first()).toBeHidden();
    expect(violations).toEqual({ csp: [], errors: [] });
  });

  test("a long feed draws its newest entries, and the keyboard brings back the earlier ones", async ({ page, baseURL }) => {
    test.setTimeout(120_000);
    const roomId = await createRoomViaApi(baseURL!, "Long feed");
    const seat = await page.request.post(`/api/rooms/${roomId}/seat`, { data: { displayName: "Writer" } });
    expect(seat.status()).toBe(201);
    for (let index = 0; index < 70; index++) {
      const response = await page.request.post(`/api/rooms/${roomId}/nodes`, {
        data: { text: `Line ${index}`, near: { x: (index % 10) * 320, y: Math.floor(index / 10) * 200 } },
      });
      expect(response.status()).toBe(201);
    }
    const { violations } = await openWatched(page, roomId);
    const created = page.locator('[data-testid="feed-entry"][data-type="node.created"]');
    await expect(created.last()).toContainText("Line 69");
    expect(await page.getByTestId("feed-entry").count()).toBeLessThanOrEqual(60);
    // Its detail reads exactly the note's text.
    await expect(created.getByText("Line 0", { exact: true })).toHaveCount(0);

    // The first thing Tab reaches inside the feed asks for what came before.
    await page.getByTestId("feed").focus();
    await page.keyboard.press("Tab");
    const earlier = page.getByTestId("feed-earlier");
    await expect(earlier).toBeFocused();
    await expect(earlier).toHaveAccessibleName("Show earlier activity");
    await page.keyboard.press("Enter");
    await expect(created.getByText("Line 0", { exact: true })).toHaveCount(1);
    await expect(created).toHaveCount(70);
    await expect(earlier).toHaveCount(0);
    expect(violations).toEqual({ csp: [], errors: [] });
  });

  test("a spectator's camera follows the activity until they move the view themselves", async ({ page, baseURL }) => {
    const roomId = await createRoomViaApi(baseURL!, "Followed");
    const { room, violations } = await openWatched(page, roomId);
    const follow = page.getByTestId("follow-activity");
    await expect(follow).toHaveAttribute("aria-pressed", "true");
    // A seat writes from elsewhere: the spectator's page only watches.
    const writer = await page.context().browser()!.newContext();
    const writerPage = await writer.newPage();
    const seat = await writerPage.request.post(`${baseURL}/api/rooms/${roomId}/seat`, { data: { displayName: "Writer" } });
    expect(seat.status()).toBe(201);
    const far = await (async () => {
      const response = await writerPage.request.post(`${baseURL}/api/rooms/${roomId}/nodes`, {
        data: { text: "Far away, written while you watch", near: { x: 4000, y: 3000 } },
      });
      return ((await response.json()) as { node: { id: string } }).node.id;
    })();
    await expect(room.node(far)).toBeInViewport({ timeout: 10_000 });
    await room.viewSettled();
    await expect(page.getByTestId("canvas")).toHaveAttribute("data-zoom", "near");

    await room.panLeft();
    await expect(follow).toHaveAttribute("aria-pressed", "false");
    const response = await writerPage.request.post(`${baseURL}/api/rooms/${roomId}/nodes`, {
      data: { text: "Even further", near: { x: -5000, y: -4000 } },
    });
    const further = ((await response.json()) as { node: { id: string } }).node.id;
    await expect(room.node(further)).toBeAttached();
    await room.viewSettled();
    await expect(room.node(further)).not.toBeInViewport();
    await writer.close();
    expect(violations).toEqual({ csp: [], errors: [] });
  });
});

test.describe("what a spectator reads", () => {
  test("a build review: each dialogue line once, code versions announced as versions, the trace titled by its task; axe finds nothing serious", async ({
    browser,
    baseURL,
  }) => {
    test.setTimeout(150_000);
    const roomId = await createRoomViaApi(baseURL!, "Word counter", "build-review");
    const participantContext = await browser.newContext();
    const { room: participant } = await openWatched(await participantContext.newPage(), roomId, "Ada");
    const spectatorContext = await browser.newContext();
    const { room: spectator, violations } = await openWatched(await spectatorContext.newPage(), roomId);
    await participant.page.getByTestId("review-task").fill("Word counter");
    await participant.page.getByTestId("review-start").click();
    const page = spectator.page;
    await expect(page.getByTestId("review-status")).toContainText("Approved", { timeout: 60_000 });
    await expect(page.getByTestId("dialogue-closed")).toBeVisible();

    // Each line of the dialogue shows once on the page: in its thread, not again as a step of the feed.
    const lines = await page
      .getByTestId("dialogue-message")
      .evaluateAll((items) => items.map((item) => item.childNodes[2]?.textContent?.trim() ?? ""));
    expect(lines.length).toBeGreaterThan(0);
    const feedText = (await page.getByTestId("feed").textContent()) ?? "";
    for (const line of lines.filter(Boolean)) {
      expect(feedText.split(line.slice(0, 60)).length - 1, `“${line.slice(0, 60)}” shows once`).toBe(1);
    }
    // Version 2 is announced as a version, and no code is announced as an edited note.
    await expect(page.getByTestId("feed-entry").filter({ hasText: "submitted version 2 of the code" })).toHaveCount(1);
    await expect(page.getByTestId("feed-entry").filter({ hasText: "edited a note" })).toHaveCount(0);
    await expectAccessible(page, "a finished build review");

    await page.getByTestId("feed-entry").filter({ hasText: "submitted version 2 of the code" }).getByTestId("trace-workflow").click();
    await expect(page.getByTestId("trace-title")).toHaveText("Build review: Word counter");
    await expect(
      page
        .getByTestId("workflow-trace")
        .getByTestId("trace-message")
        .filter({ hasText: /said “.+”/ })
        .first(),
    ).toBeVisible();
    await expectAccessible(page, "a build review's trace");
    await page.keyboard.press("Escape");
    await expect(page.getByTestId("workflow-trace")).toBeHidden();
    expect(violations).toEqual({ csp: [], errors: [] });
    await participantContext.close();
    await spectatorContext.close();
  });

  test("the brainstorm gate leaves the lanes in view with Approve on screen, and a drop is undoable until the decision", async ({
    page,
    baseURL,
  }, testInfo) => {
    test.setTimeout(240_000);
    const roomId = await createRoomViaApi(baseURL!, "Onboarding", "brainstorm");
    const { room, violations } = await openWatched(page, roomId, "Ada");
    await page.getByTestId("brainstorm-problem").fill("How might we cut onboarding time for new engineers?");
    await page.getByTestId("brainstorm-start").click();
    await expect(page.getByTestId("stage-gate")).toHaveAttribute("data-status", "awaiting", { timeout: 180_000 });
    const approve = page.getByTestId("gate-approve");
    await expect(approve).toBeInViewport();

    // The panel sits beside the canvas, not over it.
    const panel = (await page.getByTestId("brainstorm-panel").boundingBox())!;
    const canvas = (await page.locator(".react-flow").boundingBox())!;
    expect(panel.x + panel.width).toBeLessThanOrEqual(canvas.x + 1);
    await room.fitView();
    await room.viewSettled();
    await page.screenshot({ path: testInfo.outputPath("brainstorm-gate.png") });
    await page.screenshot({ path: "test-results/screenshots/brainstorm-gate.png" });
    await expectAccessible(page, "the brainstorm gate");

    // Drop the top candidate, then think better of it: nothing is sent until the decision.
    const ranking = page.getByTestId("gate-ranking").locator("li");
    const first = ranking.first();
    const firstTitle = ((await first.locator("strong").textContent()) ?? "").replace(/^1\. /, "").trim();
    await first.getByRole("button", { name: "Drop" }).click();
    await expect(page.getByTestId("gate-pending")).toBeVisible();
    await expect(first.getByRole("button", { name: "Undo drop" })).toBeVisible();
    await expect(approve).not.toContainText(firstTitle);
    await first.getByRole("button", { name: "Undo drop" }).click();
    await expect(page.getByTestId("gate-pending")).toBeHidden();
    await expect(approve).toContainText(firstTitle);

    // Dropped for real with the decision: the second takes #1, and the first says why it left.
    const secondTitle = ((await ranking.nth(1).locator("strong").textContent()) ?? "").replace(/^2\. /, "").trim();
    await first.getByRole("button", { name: "Drop" }).click();
    await expect(approve).toContainText(secondTitle);
    await approve.click();
    await expect(page.getByTestId("stage-presentation")).toHaveAttribute("data-status", "done", { timeout: 90_000 });
    await page.getByTestId("read-deliverable").click();
    await expect(page.getByTestId("deliverable-body")).toContainText(secondTitle);
    await expectAccessible(page, "the deliverable");
    await page.keyboard.press("Escape");
    await expect(page.getByTestId("deliverable")).toBeHidden();
    expect(violations).toEqual({ csp: [], errors: [] });
  });
});

test.describe("on a phone at 390 × 844", () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

  test("a compact header, a tapped feed entry shown on the canvas, trace without hover and 44 px targets; axe finds nothing serious", async ({
    page,
    baseURL,
  }, testInfo) => {
    test.setTimeout(120_000);
    const roomId = await createRoomViaApi(baseURL!, "Harbour songs at night, sung by the whole harbour");
    await configureRoom(baseURL!, roomId, { scheduler_enabled: true, scheduler_interval_seconds: 60 });
    const { violations } = await openWatched(page, roomId);
    const header = (await page.locator(".room-header").boundingBox())!;
    expect(header.height).toBeLessThanOrEqual(64);
    await expect(page.getByTestId("connection-status")).toBeVisible();
    await expectAccessible(page, "the room on a phone");

    // The header's details open under it: who starts next, who watches, the seat.
    const more = page.getByTestId("room-header-more");
    await more.tap();
    await expect(more).toHaveAttribute("aria-expanded", "true");
    await expect(page.getByTestId("next-turn")).toBeVisible();
    await expect(page.getByTestId("watching-count")).toBeVisible();
    await page.screenshot({ path: testInfo.outputPath("phone-header-open.png") });
    await page.getByTestId("display-name-input").fill("Ada");
    await page.getByTestId("take-seat").tap();
    await expect(page.getByTestId("seat-name")).toContainText("Ada");
    await more.tap();
    await expect(page.getByTestId("seat-name")).toBeHidden();

    // The Songwriter works; the activity pane shows it.
    await page.getByTestId("phone-tab-agents").tap();
    await page.getByTestId("agent-songwriter").getByTestId("agent-start").tap();
    await page.getByTestId("phone-tab-activity").tap();
    const entry = page.getByTestId("feed-entry").filter({ hasText: "reacted to Songwriter's contribution" }).first();
    await expect(entry).toBeVisible({ timeout: 40_000 });
    const trace = entry.getByTestId("trace-workflow");
    await expect(trace).toBeVisible();
    const targets = [trace, entry.getByTestId("feed-show"), page.getByTestId("phone-tab-canvas"), more];
    for (const target of targets) {
      const box = (await target.boundingBox())!;
      expect(box.height, "a touch target is at least 44 px high").toBeGreaterThanOrEqual(44);
      expect(box.width, "a touch target is at least 44 px wide").toBeGreaterThanOrEqual(44);
    }
    await expectAccessible(page, "the activity on a phone");
    await page.screenshot({ path: testInfo.outputPath("phone-activity.png") });

    // Tapping the entry switches to the canvas and shows its notes.
    await entry.locator(".feed__body").tap();
    await expect(page.locator(".react-flow")).toBeVisible();
    await expect(page.locator(".note--highlighted").first()).toBeVisible();
    const toggle = (await page.getByTestId("who-asked-toggle").boundingBox())!;
    expect(Math.min(toggle.width, toggle.height), "the who-asked-whom toggle is a 44 px target").toBeGreaterThanOrEqual(44);
    for (const note of await page.locator(".note--highlighted").all()) await expect(note).toBeInViewport();
    await page.screenshot({ path: testInfo.outputPath("phone-canvas-shown.png") });
    await page.screenshot({ path: "test-results/screenshots/phone-canvas-shown.png" });

    // The trace opens by touch and closes by its button.
    await page.getByTestId("phone-tab-activity").tap();
    await trace.tap();
    await expect(page.getByTestId("workflow-trace")).toBeVisible();
    await expectAccessible(page, "a trace on a phone");
    await page.getByTestId("close-trace").tap();
    await expect(page.getByTestId("workflow-trace")).toBeHidden();
    expect(violations).toEqual({ csp: [], errors: [] });
  });
});
