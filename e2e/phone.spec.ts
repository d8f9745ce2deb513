import type { Locator } from "@playwright/test";
import { expect, test } from "./support/fixtures";
import { configureRoom, createRoomViaApi } from "./support/room-page";

/** Both are on screen and no part of one lies over the other. */
async function expectApart(one: Locator, other: Locator) {
  await expect(one).toBeVisible();
  await expect(other).toBeVisible();
  const [a, b] = (await Promise.all([one.boundingBox(), other.boundingBox()])) as [Box, Box];
  const apart = a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y || b.y + b.height <= a.y;
  expect(apart, `${JSON.stringify(a)} overlaps ${JSON.stringify(b)}`).toBe(true);
}

type Box = { x: number; y: number; width: number; height: number };

test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

test("at phone width the header, the canvas and the feed are each usable", async ({ page, baseURL }, testInfo) => {
  const roomId = await createRoomViaApi(baseURL!, "Harbour songs at night");
  await page.goto(`/rooms/${roomId}`);
  const title = page.getByTestId("room-title");
  await expect(title).toBeVisible();
  await expect(page.getByTestId("connection-status")).toHaveText("Live");

  // The header is one line; its details open under it. Its parts do not overlap, and none leaves the screen.
  expect((await page.locator(".room-header").boundingBox())!.height).toBeLessThanOrEqual(64);
  await expect(page.getByTestId("watching-count")).toBeHidden();
  await page.getByTestId("room-header-more").click();
  const boxes = await Promise.all(
    [title, page.getByTestId("connection-status"), page.getByTestId("watching-count")].map((part) => part.boundingBox()),
  );
  for (const box of boxes) expect(box!.x + box!.width).toBeLessThanOrEqual(390);
  const [titleBox, statusBox] = boxes as [
    { x: number; y: number; width: number; height: number },
    { x: number; y: number; width: number; height: number },
  ];
  expect(titleBox.y + titleBox.height <= statusBox.y || statusBox.x >= titleBox.x + titleBox.width).toBe(true);

  await page.getByTestId("room-header-more").click();
  await expect(page.getByTestId("watching-count")).toBeHidden();

  // The canvas fills most of the screen.
  const canvas = await page.locator(".react-flow").boundingBox();
  expect(canvas!.height).toBeGreaterThan(844 * 0.7);
  expect(canvas!.width).toBeGreaterThan(380);
  // The who-asked-whom toggle does not cover the spectator's note, nor (below) a participant's toolbar.
  await expectApart(page.getByTestId("who-asked-toggle"), page.getByTestId("spectator-badge"));
  await page.screenshot({ path: testInfo.outputPath("phone-canvas.png") });

  await page.getByTestId("phone-tab-agents").click();
  await expect(page.getByTestId("agent-roster")).toBeVisible();
  await expect(page.locator(".react-flow")).toBeHidden();
  await page.getByTestId("agent-songwriter").scrollIntoViewIfNeeded();

  await page.getByTestId("phone-tab-activity").click();
  await expect(page.getByTestId("feed")).toBeVisible();
  await expect(page.getByTestId("agent-roster")).toBeHidden();
  await page.getByTestId("tab-findings").click();
  await expect(page.getByTestId("findings")).toBeVisible();
  await page.screenshot({ path: testInfo.outputPath("phone-activity.png") });

  // Seated, a participant can still steer from the canvas pane.
  await page.getByTestId("phone-tab-canvas").click();
  await page.getByTestId("room-header-more").click();
  await page.getByPlaceholder("Your name").fill("Ada");
  await page.getByRole("button", { name: "Take a seat" }).click();
  await page.getByTestId("room-header-more").click();
  await expect(page.getByTestId("command-input")).toBeVisible();
  await expectApart(page.getByTestId("who-asked-toggle"), page.getByTestId("canvas-toolbar"));
  const bar = await page.getByTestId("command-bar").boundingBox();
  expect(bar!.y + bar!.height).toBeLessThanOrEqual(844);
});

test("at phone width a room whose scheduler is on says who starts next, clear of the rest of the header", async ({
  page,
  baseURL,
}, testInfo) => {
  const roomId = await createRoomViaApi(baseURL!, "Harbour songs at night, all night long");
  await configureRoom(baseURL!, roomId, { scheduler_enabled: true, scheduler_interval_seconds: 60 });
  await page.goto(`/rooms/${roomId}`);
  await page.getByTestId("room-header-more").click();
  const next = page.getByTestId("next-turn");
  await expect(next).toHaveText(/^next: .+ (in \d+ s|any moment)$/);
  const parts = ["room-title", "connection-status", "next-turn", "budget-left", "watching-count"].map((id) => page.getByTestId(id));
  for (const part of parts) {
    await expect(part).toBeVisible();
    const box = (await part.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
  }
  for (const [index, one] of parts.entries()) for (const other of parts.slice(index + 1)) await expectApart(one, other);
  await page.screenshot({ path: testInfo.outputPath("phone-header-next-turn.png") });
  // Closed again, the header leaves the canvas most of the screen.
  await page.getByTestId("room-header-more").click();
  expect((await page.locator(".react-flow").boundingBox())!.height).toBeGreaterThan(844 * 0.7);
});
