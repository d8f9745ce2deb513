import type { APIRequestContext, Page, TestInfo } from "@playwright/test";
import { expectAccessible } from "./support/axe";
import { expect, test } from "./support/fixtures";
import { RoomPage, configureRoom, createRoomViaApi } from "./support/room-page";
import { watchViolations } from "./support/watch-violations";

interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

const AUTHORS = ["Songwriter Sam", "Painter Pia", "Weaver Wen", "Curator Cy", "Storyteller Sol"];
const WORDS = "rain harbour lantern tide drift signal hollow copper ember quiet meadow static".split(" ");

/**
 * A room of 200 notes by five authors (uneven shares, as a real team writes), with 100 links between
 * them, within a lane and across lanes. Answers the room's id and how many notes each author wrote.
 */
async function crowdedRoom(request: (baseURL: string) => Promise<APIRequestContext>, baseURL: string) {
  const roomId = await createRoomViaApi(baseURL, "Two hundred notes in lanes");
  const seats = await Promise.all(
    AUTHORS.map(async (name) => {
      const context = await request(baseURL);
      const seat = await context.post(`/api/rooms/${roomId}/seat`, { data: { displayName: name } });
      expect(seat.status()).toBe(201);
      return context;
    }),
  );
  const ids: string[] = [];
  const written = AUTHORS.map(() => 0);
  for (let index = 0; index < 200; index++) {
    const author = index < 60 ? index % 2 : index % AUTHORS.length;
    const words = Array.from({ length: 3 + (index % 9) * 4 }, (_, n) => WORDS[(index * 7 + n * 3) % WORDS.length]).join(" ");
    const response = await seats[author]!.post(`/api/rooms/${roomId}/nodes`, {
      data: { text: `Idea ${index}: ${words}`, near: { x: (index % 7) * 400, y: Math.floor(index / 7) * 30 } },
    });
    expect(response.status()).toBe(201);
    ids.push(((await response.json()) as { node: { id: string } }).node.id);
    written[author]!++;
  }
  for (let index = 0; index < 100; index++) {
    const response = await seats[index % AUTHORS.length]!.post(`/api/rooms/${roomId}/edges`, {
      data: { sourceId: ids[index * 2], targetId: ids[(index * 37 + 11) % 200], label: index % 3 ? "builds on" : "answers" },
    });
    expect(response.status()).toBe(201);
  }
  await Promise.all(seats.map((seat) => seat.dispose()));
  return { roomId, written };
}

function overlapping(rects: Rect[], others: Rect[] = rects): [number, number][] {
  const found: [number, number][] = [];
  for (const [i, a] of rects.entries()) {
    for (const [j, b] of others.entries()) {
      if (rects === others && j <= i) continue;
      if (a.x + 0.5 < b.x + b.width && b.x + 0.5 < a.x + a.width && a.y + 0.5 < b.y + b.height && b.y + 0.5 < a.y + a.height)
        found.push([i, j]);
    }
  }
  return found;
}

async function viewZoom(page: Page): Promise<number> {
  return page.locator(".react-flow__viewport").evaluate((element) => new DOMMatrix(getComputedStyle(element).transform).a);
}

/**
 * Every note's title, as drawn: its type size on screen (computed size × the view's zoom), the box
 * its text takes on screen and the note's own box. Asserts each title is at least 11 px, shows at
 * least one whole line, and stays inside its note; and that no two notes overlap.
 */
async function expectLegible(page: Page, notes: number, { wholeLines = true } = {}) {
  const zoom = await viewZoom(page);
  const drawn = await page.locator(".react-flow__node-note").evaluateAll((elements) =>
    elements.map((element) => {
      const title = element.querySelector<HTMLElement>('[data-testid="note-title"]');
      const rect = element.getBoundingClientRect();
      const titleRect = title?.getBoundingClientRect();
      const box = element.querySelector<HTMLElement>(".note__title")?.getBoundingClientRect();
      return {
        note: { x: rect.x, y: rect.y, width: rect.width, height: rect.height },
        title: titleRect ? { x: titleRect.x, y: titleRect.y, width: titleRect.width, height: titleRect.height } : null,
        box: box ? { x: box.x, y: box.y, width: box.width, height: box.height } : null,
        size: title ? Number.parseFloat(getComputedStyle(title).fontSize) : 0,
        text: title?.textContent ?? "",
      };
    }),
  );
  expect(drawn).toHaveLength(notes);
  const sizes = drawn.map((entry) => entry.size * zoom);
  const smallest = Math.min(...sizes);
  const problems = drawn.flatMap((entry, index) => {
    const found: string[] = [];
    if (!entry.title || !entry.box) return [`${index}: no title`];
    if (entry.size * zoom < 11) found.push(`${index}: title ${entry.size * zoom} px`);
    // The title's box never reaches past its note (its 1 px border aside) onto the one below.
    if (entry.box.y + entry.box.height > entry.note.y + entry.note.height + 2) found.push(`${index}: title box runs out of its note`);
    if (wholeLines) {
      if (entry.title.height < entry.size * zoom) found.push(`${index}: title ${entry.title.height} px high, less than a line`);
      if (entry.title.y + entry.title.height > entry.note.y + entry.note.height + 1) found.push(`${index}: title runs out of its note`);
    }
    return found;
  });
  expect(problems).toEqual([]);
  const overlaps = overlapping(drawn.map((entry) => entry.note));
  expect(overlaps).toEqual([]);
  // The lane headings cover no note either.
  const headings = await page.locator(".lane__header").evaluateAll((elements) =>
    elements.map((element) => {
      const { x, y, width, height } = element.getBoundingClientRect();
      return { x, y, width, height };
    }),
  );
  expect(
    overlapping(
      headings,
      drawn.map((entry) => entry.note),
    ),
  ).toEqual([]);
  return { zoom, smallest, overlaps: overlaps.length };
}

async function shoot(page: Page, testInfo: TestInfo, name: string) {
  await page.screenshot({ path: testInfo.outputPath(name) });
  await page.screenshot({ path: `test-results/screenshots/${name}` });
}

test.describe("at 1440 × 900", () => {
  test("200 notes in lanes at fit view: titles of 11 px or more, nothing overlapping, links along the gaps; a lane folds and opens by mouse and keyboard", async ({
    page,
    baseURL,
    playwright,
  }, testInfo) => {
    test.setTimeout(240_000);
    const { roomId, written } = await crowdedRoom((base) => playwright.request.newContext({ baseURL: base }), baseURL!);
    const violations = await watchViolations(page);
    const room = new RoomPage(page);
    await room.goto(roomId);
    await expect(page.locator(".react-flow__node-note")).toHaveCount(200);

    await page.getByTestId("arrange-lanes").click();
    await expect(page.getByTestId("arrange-lanes")).toHaveAttribute("aria-pressed", "true");
    await expect(page.getByTestId("lane")).toHaveCount(AUTHORS.length);
    await room.fitView();
    await room.viewSettled();
    await expect(page.getByTestId("canvas")).toHaveAttribute("data-zoom", "far");
    const measured = await expectLegible(page, 200);
    testInfo.annotations.push({ type: "desktop", description: JSON.stringify(measured) });
    console.log(`lanes at 1440×900: ${JSON.stringify(measured)}`);
    // Far out, links are faint, keep their names, and hide their labels.
    const links = page.locator(".react-flow__edge");
    await expect(links).toHaveCount(100);
    expect(
      await links.evaluateAll((elements) => elements.every((element) => element.getAttribute("aria-label")?.startsWith("link: "))),
    ).toBe(true);
    await expect(page.getByTestId("edge-label").first()).toBeHidden();
    const opacity = () =>
      page
        .locator(".react-flow__edge-path")
        .first()
        .evaluate((element) => Number(getComputedStyle(element).opacity));
    expect(await opacity()).toBeLessThan(0.5);
    await shoot(page, testInfo, "lanes-200-fit.png");

    // Pointing at a note brings out its links.
    const source = page.locator(".react-flow__node-note").first();
    await source.hover();
    await expect(page.getByTestId("link-focus")).toBeAttached();
    await shoot(page, testInfo, "lanes-200-hover.png");
    await page.mouse.move(5, 5);

    // Each lane's toggle is a 44 px target with a name that says what it does and what the lane holds.
    const toggle = page.getByTestId("lane-toggle").first();
    const box = (await toggle.boundingBox())!;
    expect(box.width).toBeGreaterThanOrEqual(44);
    expect(box.height).toBeGreaterThanOrEqual(44);
    const first = written[0]!;
    await expect(toggle).toHaveAccessibleName(`Collapse ${AUTHORS[0]}'s lane, ${first} notes`);
    await expect(toggle).toHaveAttribute("aria-expanded", "true");
    await toggle.click();
    await expect(toggle).toHaveAttribute("aria-expanded", "false");
    await expect(toggle).toHaveAccessibleName(new RegExp(`^Expand ${AUTHORS[0]}'s lane: ${first} notes, latest “Idea \\d+`));
    await expect(page.getByTestId("lane-summary")).toHaveText(new RegExp(`^${AUTHORS[0]} — ${first} notes: latest “Idea \\d+`));
    await expect(page.locator(".react-flow__node-note")).toHaveCount(200 - first);
    await room.fitView();
    await room.viewSettled();
    await expectLegible(page, 200 - first);
    await shoot(page, testInfo, "lanes-200-collapsed.png");
    await expectAccessible(page, "a room in lanes with a lane collapsed");

    // The keyboard opens it again.
    await toggle.focus();
    await page.keyboard.press("Enter");
    await expect(toggle).toHaveAttribute("aria-expanded", "true");
    await expect(page.locator(".react-flow__node-note")).toHaveCount(200);

    // Arrow keys move between the notes as they are drawn in lanes.
    const note = page.locator(".react-flow__node-note").first();
    await note.focus();
    await page.keyboard.press("ArrowRight");
    const focusedId = await page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.id ?? null);
    expect(focusedId).not.toBeNull();
    expect(focusedId).not.toBe(await note.getAttribute("data-id"));

    // Zoomed in to reading, notes show their text and links their labels.
    const canvas = page.getByTestId("canvas");
    for (let step = 0; step < 20 && (await canvas.getAttribute("data-zoom")) === "far"; step++) {
      await page.locator(".react-flow__controls-zoomin").click();
      await room.viewSettled();
    }
    await expect(page.locator(".react-flow__node-note .note__title").first()).toBeHidden();
    await shoot(page, testInfo, "lanes-200-reading.png");
    await expectAccessible(page, "a room in lanes at reading zoom");

    // Back to the room as placed: the room's own positions were never changed.
    await page.getByTestId("arrange-lanes").click();
    await expect(page.getByTestId("lane")).toHaveCount(0);
    await expect(page.locator(".react-flow__node-note")).toHaveCount(200);
    expect(violations).toEqual({ csp: [], errors: [] });
  });

  test("the demo room after its agents have worked a while, as placed and in lanes", async ({ page, baseURL }, testInfo) => {
    test.setTimeout(240_000);
    const roomId = await createRoomViaApi(baseURL!, "Rain on the window");
    await configureRoom(baseURL!, roomId, {
      task: "Write a song about rain on a city window at night and paint the scene it describes.",
      scheduler_enabled: true,
      scheduler_interval_seconds: 5,
    });
    const violations = await watchViolations(page);
    const room = new RoomPage(page);
    await room.goto(roomId);
    // The agents type fast here: a couple of minutes of theirs is a long demo's worth of work.
    await expect
      .poll(() => page.locator(".react-flow__node-note").count(), { timeout: 150_000, intervals: [2_000] })
      .toBeGreaterThanOrEqual(24);
    // The camera stops following the newest work, so that the whole room stays in view.
    await page.getByTestId("follow-activity").click();
    await expect(page.getByTestId("follow-activity")).toHaveAttribute("aria-pressed", "false");
    await room.fitView();
    await room.viewSettled();
    await shoot(page, testInfo, "demo-placed.png");
    await page.getByTestId("arrange-lanes").click();
    // The agents are still at work: measured again until one reading holds the notes then drawn.
    await expect(async () => {
      await room.fitView();
      await room.viewSettled();
      const count = await page.locator(".react-flow__node-note").count();
      const measured = await expectLegible(page, count);
      console.log(`demo room in lanes (${count} notes): ${JSON.stringify(measured)}`);
    }).toPass({ timeout: 60_000 });
    await shoot(page, testInfo, "demo-lanes.png");
    await expectAccessible(page, "the demo room in lanes");
    expect(violations.errors).toEqual([]);
  });
});

test.describe("at 390 × 844 on a touch screen", () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

  test("200 notes in lanes: titles of 11 px or more and nothing overlapping; folded by taps to one lane, every title shows whole lines", async ({
    page,
    baseURL,
    playwright,
  }, testInfo) => {
    test.setTimeout(240_000);
    const { roomId, written } = await crowdedRoom((base) => playwright.request.newContext({ baseURL: base }), baseURL!);
    const violations = await watchViolations(page);
    const room = new RoomPage(page);
    await room.goto(roomId);
    await expect(page.locator(".react-flow__node-note")).toHaveCount(200);
    await page.getByTestId("arrange-lanes").tap();
    await room.fitView();
    await room.viewSettled();
    // 200 notes in a phone's view leave each a cell too short for a whole line: the type keeps its size, and
    // each title is cut at its own note's edge, over no other.
    const crowded = await expectLegible(page, 200, { wholeLines: false });
    console.log(`lanes at 390×844, 200 notes: ${JSON.stringify(crowded)}`);
    await shoot(page, testInfo, "lanes-200-phone.png");

    // Folding every lane but the first gives it the room: each of its titles shows whole lines.
    const toggles = page.getByTestId("lane-toggle");
    await expect(toggles).toHaveCount(AUTHORS.length);
    for (let index = AUTHORS.length - 1; index >= 1; index--) {
      const toggle = toggles.nth(index);
      await room.fitView();
      await room.viewSettled();
      const box = (await toggle.boundingBox())!;
      expect(Math.min(box.width, box.height)).toBeGreaterThanOrEqual(44);
      await toggle.tap();
      await expect(toggle).toHaveAttribute("aria-expanded", "false");
    }
    await expect(page.getByTestId("lane-summary")).toHaveCount(AUTHORS.length - 1);
    await room.fitView();
    await room.viewSettled();
    const folded = await expectLegible(page, written[0]!);
    console.log(`lanes at 390×844, one lane of ${written[0]} open: ${JSON.stringify(folded)}`);
    await shoot(page, testInfo, "lanes-200-phone-folded.png");

    await toggles.nth(1).tap();
    await expect(toggles.nth(1)).toHaveAttribute("aria-expanded", "true");
    await expect(page.locator(".react-flow__node-note")).toHaveCount(written[0]! + written[1]!);
    expect(violations).toEqual({ csp: [], errors: [] });
  });
});
