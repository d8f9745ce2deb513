import type { Page } from "@playwright/test";
import { expect, test } from "./support/fixtures";
import { createRoomViaApi } from "./support/room-page";

interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Pairs of rectangles that overlap by more than a rounding error. */
function overlaps(rects: Rect[], others: Rect[] = rects): [number, number][] {
  const found: [number, number][] = [];
  const same = rects === others;
  for (const [i, a] of rects.entries()) {
    for (const [j, b] of others.entries()) {
      if (same && j <= i) continue;
      if (a.x + 0.5 < b.x + b.width && b.x + 0.5 < a.x + a.width && a.y + 0.5 < b.y + b.height && b.y + 0.5 < a.y + a.height)
        found.push([i, j]);
    }
  }
  return found;
}

async function rectsOf(page: Page, selector: string): Promise<Rect[]> {
  return page.locator(selector).evaluateAll((elements) =>
    elements.map((element) => {
      const { x, y, width, height } = element.getBoundingClientRect();
      return { x, y, width, height };
    }),
  );
}

const WORDS = "rain harbour lantern tide drift signal hollow copper ember quiet meadow static".split(" ");

/** A note's text: a few words, a paragraph, or a long piece with line breaks, so heights vary widely. */
function textFor(index: number): string {
  const words = (count: number) => Array.from({ length: count }, (_, n) => WORDS[(index * 7 + n * 3) % WORDS.length]).join(" ");
  switch (index % 5) {
    case 0:
      return `Note ${index}: ${words(4)}`;
    case 1:
      return `Note ${index}: ${words(40)}`;
    case 2:
      return `Note ${index}\n${words(6)}\n${words(6)}\n${words(6)}`;
    case 3:
      return `Note ${index}: ${words(260)}`.slice(0, 1900);
    default:
      return `Note ${index}: ${words(14)}`;
  }
}

const LABELS = ["builds on", "answers", "contrasts with", "echoes the mood of", "inspired"];

test("200 notes placed by the canvas never overlap and their links' labels stay clear, before and after a tidy", async ({
  openRoom,
  baseURL,
}) => {
  test.setTimeout(180_000);
  const roomId = await createRoomViaApi(baseURL!, "A crowded canvas");
  const room = await openRoom(roomId, { name: "Ada" });
  const api = room.page.request;

  // Five people-sized clusters, as agents working from their own areas make them.
  const anchors = [
    { x: -760, y: 0 },
    { x: 0, y: 0 },
    { x: 760, y: 0 },
    { x: -380, y: 900 },
    { x: 380, y: 900 },
  ];
  const ids: string[] = [];
  for (let index = 0; index < 200; index++) {
    const response = await api.post(`/api/rooms/${roomId}/nodes`, {
      data: { text: textFor(index), near: anchors[index % anchors.length] },
    });
    expect(response.status()).toBe(201);
    ids.push(((await response.json()) as { node: { id: string } }).node.id);
  }
  // Each note links to the one before it in its cluster, the way work builds on work.
  let links = 0;
  for (let index = anchors.length; index < 200; index += 2) {
    const response = await api.post(`/api/rooms/${roomId}/edges`, {
      data: { sourceId: ids[index - anchors.length], targetId: ids[index], label: LABELS[index % LABELS.length] },
    });
    expect(response.status()).toBe(201);
    links++;
  }

  const page = room.page;
  await page.reload();
  await expect(page.getByTestId("connection-status")).toHaveAttribute("data-state", "live");
  // The room's agents may add work of their own meanwhile: there are at least ours.
  // Too crowded to read as placed, the room opens in lanes; what is checked here is the room as placed.
  await expect(page.getByTestId("canvas")).toHaveAttribute("data-arrange", "lanes");
  await page.getByTestId("arrange-lanes").click();
  await expect(page.getByTestId("canvas")).toHaveAttribute("data-arrange", "free");
  await expect.poll(() => room.nodes().count(), { timeout: 20_000 }).toBeGreaterThanOrEqual(200);
  await expect.poll(() => page.getByTestId("edge-label").count(), { timeout: 10_000 }).toBeGreaterThanOrEqual(links);

  // Measured once the view has stopped moving and the notes and labels have been drawn where they go:
  // polled, since notes are measured and labels laid out a frame or two after they arrive.
  const check = async (when: string) => {
    await room.fitView();
    await room.viewSettled();
    await expect
      .poll(
        async () => {
          const notes = await rectsOf(page, ".react-flow__node");
          const labels = await rectsOf(page, '[data-testid="edge-label"]');
          return {
            notes: notes.length >= 200,
            notesOverlapping: overlaps(notes),
            labelsOverlapping: overlaps(labels),
            labelsCoveringNotes: overlaps(labels, notes),
          };
        },
        { message: `the canvas ${when}`, timeout: 15_000 },
      )
      .toEqual({ notes: true, notesOverlapping: [], labelsOverlapping: [], labelsCoveringNotes: [] });
  };
  await check("as placed");
  await page.screenshot({ path: test.info().outputPath("canvas-200-placed.png") });

  await page.getByTestId("tidy-canvas").click();
  await expect(page.getByTestId("feed")).toContainText("tidied the canvas", { timeout: 20_000 });
  await check("after a tidy");
  await page.screenshot({ path: test.info().outputPath("canvas-200-tidied.png") });
});
