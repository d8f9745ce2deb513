import { expect, test } from "./support/fixtures";
import { createRoomViaApi } from "./support/room-page";

const LIVE = { timeout: 2000 };

test("a seat taken in a page counts at once in every page, on the stream the page already had", async ({ openRoom, baseURL }) => {
  const roomId = await createRoomViaApi(baseURL!, "Taking seats");
  const watcher = await openRoom(roomId);
  const ada = await openRoom(roomId);
  const count = watcher.page.getByTestId("watching-count");
  await expect(count).toHaveText("2 watching");
  await expect(watcher.page.getByTestId("participant-count")).toHaveCount(0);

  const streamsOpened: string[] = [];
  ada.page.on("request", (request) => {
    if (new URL(request.url()).pathname.endsWith("/events")) streamsOpened.push(request.url());
  });
  const counted = ada.page.waitForResponse((response) => response.url().endsWith(`/api/rooms/${roomId}/presence`));
  await ada.takeSeat("Ada");
  expect((await counted).status()).toBe(200);
  await expect(watcher.page.getByTestId("participant-count")).toHaveText("1 seated", LIVE);
  await expect(ada.page.getByTestId("participant-count")).toHaveText("1 seated", LIVE);
  await expect(count).toHaveText("2 watching");

  // The page kept its stream, so what comes next arrives once.
  const note = await ada.addNote();
  await expect(watcher.node(note)).toBeVisible(LIVE);
  await expect(ada.nodes()).toHaveCount(1);
  expect(streamsOpened).toEqual([]);
});

test("a seat whose count the server could not take at first is counted once it can", async ({ openRoom, baseURL }) => {
  const roomId = await createRoomViaApi(baseURL!, "Counting again");
  const watcher = await openRoom(roomId);
  const ada = await openRoom(roomId);
  const answers: number[] = [];
  ada.page.on("response", (response) => {
    if (response.url().endsWith(`/api/rooms/${roomId}/presence`)) answers.push(response.status());
  });
  let refused = 0;
  await ada.page.route(`**/api/rooms/${roomId}/presence`, async (route) => {
    if (refused++ > 0) return route.continue();
    await route.fulfill({ status: 503, contentType: "text/html", body: "<html>Service Unavailable</html>" });
  });

  await ada.takeSeat("Ada");
  await expect(watcher.page.getByTestId("participant-count")).toHaveText("1 seated");
  await expect(ada.page.getByTestId("participant-count")).toHaveText("1 seated");
  expect(answers).toEqual([503, 200]);
});
