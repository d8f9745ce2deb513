import { type Locator, type Page, expect } from "@playwright/test";
import { E2E_ADMIN_TOKEN } from "./constants";

/** The room page as a participant or spectator uses it. */
export class RoomPage {
  constructor(readonly page: Page) {}

  async goto(roomId: string, baseUrl?: string) {
    await this.page.goto(`${baseUrl ?? ""}/rooms/${roomId}`);
    await expect(this.page.getByTestId("connection-status")).toHaveAttribute("data-state", "live");
  }

  async takeSeat(name: string) {
    await this.page.getByTestId("display-name-input").fill(name);
    await this.page.getByTestId("take-seat").click();
    await expect(this.page.getByTestId("seat-name")).toContainText(name);
  }

  /**
   * Starts recording which of these CSS selectors match something in the page from now on,
   * however briefly: what shows only while something lasts (an open dialogue, a turn being
   * written, a shadow answering) can come and go between two polls of an assertion.
   */
  async recordAppearances(selectors: string[]) {
    await this.page.evaluate((watched) => {
      const seen = new Set<string>();
      const look = () => {
        for (const selector of watched) if (document.querySelector(selector)) seen.add(selector);
      };
      look();
      new MutationObserver(look).observe(document.body, { childList: true, subtree: true, attributes: true });
      (window as unknown as { __appeared: Set<string> }).__appeared = seen;
    }, selectors);
  }

  /** Whether a selector passed to `recordAppearances` has matched since. */
  async appeared(selector: string): Promise<boolean> {
    return this.page.evaluate((watched) => (window as unknown as { __appeared: Set<string> }).__appeared.has(watched), selector);
  }

  nodes(): Locator {
    return this.page.locator(".react-flow__node");
  }

  /**
   * Every note the canvas holds, drawn or not: the minimap draws them all. Showing a moment of the
   * past, the canvas itself draws only the notes in view.
   */
  notesHeld(): Locator {
    return this.page.locator(".react-flow__minimap-node");
  }

  node(id: string): Locator {
    return this.page.locator(`.react-flow__node[data-id="${id}"]`);
  }

  noteWithText(text: string): Locator {
    return this.page.locator(".react-flow__node", { hasText: text });
  }

  async nodeIds(): Promise<string[]> {
    return this.nodes().evaluateAll((elements) => elements.map((element) => element.getAttribute("data-id") ?? ""));
  }

  /** Adds a note with the toolbar and returns its id once the server has confirmed it. */
  async addNote(): Promise<string> {
    const before = new Set(await this.nodeIds());
    await this.page.getByTestId("add-note").click();
    let created = "";
    await expect
      .poll(async () => {
        created = (await this.nodeIds()).find((id) => !before.has(id)) ?? "";
        return created;
      })
      .not.toBe("");
    return created;
  }

  async writeInNote(id: string, text: string) {
    await this.node(id).getByTestId("note-text").dblclick();
    const editor = this.node(id).getByTestId("note-editor");
    await editor.fill(text);
    await editor.press("Control+Enter");
    await expect(this.node(id).getByTestId("note-text")).toHaveText(text);
  }

  async position(id: string): Promise<{ x: number; y: number }> {
    const transform = await this.node(id).evaluate((element) => (element as HTMLElement).style.transform);
    const match = transform.match(/translate\((-?[\d.]+)px,\s*(-?[\d.]+)px\)/);
    if (!match) throw new Error(`No position in "${transform}"`);
    return { x: Number(match[1]), y: Number(match[2]) };
  }

  async drag(id: string, dx: number, dy: number) {
    const box = (await this.node(id).getByTestId("note-text").boundingBox())!;
    const startX = box.x + box.width / 2;
    const startY = box.y + box.height / 2;
    await this.page.mouse.move(startX, startY);
    await this.page.mouse.down();
    await this.page.mouse.move(startX + dx, startY + dy, { steps: 12 });
    await this.page.mouse.up();
  }

  async connect(sourceId: string, targetId: string) {
    await this.fitView();
    await this.viewSettled();
    const source = (await this.node(sourceId).locator(".react-flow__handle-bottom").boundingBox())!;
    const target = (await this.node(targetId).locator(".react-flow__handle-top").boundingBox())!;
    await this.page.mouse.move(source.x + source.width / 2, source.y + source.height / 2);
    await this.page.mouse.down();
    await this.page.mouse.move(target.x + target.width / 2, target.y + target.height / 2, { steps: 15 });
    await this.page.mouse.up();
  }

  /**
   * Pans the canvas's view to the left by nearly its width, as a viewer drags it: from a spot
   * near its right edge where nothing is drawn, so the drag moves the view and no note.
   */
  async panLeft() {
    const pane = (await this.page.locator(".react-flow__pane").boundingBox())!;
    const start = await this.page.evaluate((box) => {
      for (let x = box.x + box.width - 30; x > box.x + box.width - 120; x -= 15) {
        for (let y = box.y + 60; y < box.y + box.height - 60; y += 15) {
          if (document.elementFromPoint(x, y)?.classList.contains("react-flow__pane")) return { x, y };
        }
      }
      return null;
    }, pane);
    if (!start) throw new Error("No empty spot near the canvas's right edge to drag from");
    await this.page.mouse.move(start.x, start.y);
    await this.page.mouse.down();
    await this.page.mouse.move(pane.x + 30, start.y, { steps: 12 });
    await this.page.mouse.up();
    await this.viewSettled();
  }

  edgeLabel(text: string): Locator {
    return this.page.getByTestId("edge-label").filter({ hasText: text });
  }

  async fitView() {
    await this.page.locator(".react-flow__controls-fitview").click();
  }

  /**
   * Waits until the canvas's view stops moving (fitting and following new work animate it), so
   * that what is measured or captured next stays where it is.
   */
  async viewSettled() {
    const viewport = this.page.locator(".react-flow__viewport");
    let last: string | null = null;
    await expect
      .poll(
        async () => {
          const now = await viewport.getAttribute("style");
          const still = now !== null && now === last;
          last = now;
          return still;
        },
        { message: "the canvas's view keeps moving", intervals: [150], timeout: 10_000 },
      )
      .toBe(true);
  }
}

export async function createRoomViaApi(baseURL: string, title: string, template = "creative-canvas"): Promise<string> {
  const response = await fetch(`${baseURL}/api/rooms`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ title, template }),
  });
  if (response.status !== 201) throw new Error(`Could not create a room: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { room: { id: string } }).room.id;
}

/** Changes a room's settings as an admin would. */
export async function configureRoom(baseURL: string, roomId: string, settings: Record<string, unknown>): Promise<void> {
  const response = await fetch(`${baseURL}/api/admin/rooms/${roomId}`, {
    method: "PATCH",
    headers: { "content-type": "application/json", authorization: `Bearer ${E2E_ADMIN_TOKEN}` },
    body: JSON.stringify({ settings }),
  });
  expect(response.status).toBe(200);
}
