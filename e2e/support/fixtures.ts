import { type BrowserContext, test as base } from "@playwright/test";
import { RoomPage } from "./room-page";

/**
 * `openRoom` opens a room in a fresh browser context (its own cookies, its own live
 * connection), optionally through another base URL and seated under a name; every
 * context is closed when the test ends so no stream outlives it.
 */
export const test = base.extend<{
  openRoom: (roomId: string, options?: { name?: string; baseUrl?: string }) => Promise<RoomPage>;
}>({
  openRoom: async ({ browser }, use) => {
    const contexts: BrowserContext[] = [];
    await use(async (roomId, options = {}) => {
      const context = await browser.newContext();
      contexts.push(context);
      const room = new RoomPage(await context.newPage());
      await room.goto(roomId, options.baseUrl);
      if (options.name) await room.takeSeat(options.name);
      return room;
    });
    await Promise.all(contexts.map((context) => context.close()));
  },
});

export { expect } from "@playwright/test";
