import { type BrowserContext, test as base } from "@playwright/test";
import { RoomPage } from "./room-page";

/**
 * `openRoom` opens a room in a fresh browser context (its own cookies, its own live
 * connection), optionally through another base URL, seated under a name, and on a device
 * whose clock is `clockOffMs` ahead of the real time (behind when negative); every context
 * is closed when the test ends so no stream outlives it.
 */
export const test = base.extend<{
  openRoom: (roomId: string, options?: { name?: string; baseUrl?: string; clockOffMs?: number }) => Promise<RoomPage>;
}>({
  openRoom: async ({ browser }, use) => {
    const contexts: BrowserContext[] = [];
    await use(async (roomId, options = {}) => {
      const context = await browser.newContext();
      contexts.push(context);
      // The device's clock runs on from the wrong time, as a real one does.
      if (options.clockOffMs) await context.clock.install({ time: Date.now() + options.clockOffMs });
      const room = new RoomPage(await context.newPage());
      await room.goto(roomId, options.baseUrl);
      if (options.name) await room.takeSeat(options.name);
      return room;
    });
    await Promise.all(contexts.map((context) => context.close()));
  },
});

export { expect } from "@playwright/test";
