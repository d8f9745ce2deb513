import { expect, test } from "./support/fixtures";
import { createRoomViaApi } from "./support/room-page";
import { E2E_ADMIN_TOKEN } from "./support/constants";
import { TcpProxy } from "./support/tcp-proxy";

const LIVE = { timeout: 1000 };

test("a note added, edited, moved and connected in one page appears in another within a second", async ({ openRoom, baseURL }) => {
  const roomId = await createRoomViaApi(baseURL!, "Two tabs");
  const a = await openRoom(roomId, { name: "Ada" });
  const b = await openRoom(roomId, { name: "Ben" });
  await expect(b.page.getByTestId("watching-count")).toHaveText("2 watching");

  const written = a.page.waitForResponse((response) => response.url().endsWith("/nodes") && response.request().method() === "POST");
  const first = await a.addNote();
  await expect(b.node(first)).toBeVisible(LIVE);
  expect((await written).status()).toBe(201);

  await a.writeInNote(first, "Rain taps the glass");
  await expect(b.node(first).getByTestId("note-text")).toHaveText("Rain taps the glass", LIVE);

  const before = await b.position(first);
  await a.drag(first, 220, 120);
  const moved = await a.position(first);
  expect(moved.x).not.toBe(before.x);
  await expect.poll(() => b.position(first), LIVE).toEqual(moved);

  const second = await a.addNote();
  await a.writeInNote(second, "Streetlights blur");
  await a.page.getByTestId("edge-label-input").fill("echoes");
  await a.connect(first, second);
  await expect(a.edgeLabel("echoes")).toBeVisible();
  await expect(b.edgeLabel("echoes")).toBeVisible(LIVE);

  await b.page.reload();
  await expect(b.page.getByTestId("connection-status")).toHaveAttribute("data-state", "live");
  await expect(b.node(first).getByTestId("note-text")).toHaveText("Rain taps the glass");
  await expect(b.node(second).getByTestId("note-text")).toHaveText("Streetlights blur");
  await expect(b.edgeLabel("echoes")).toBeVisible();
  await expect.poll(() => b.position(first)).toEqual(moved);

  await b.fitView();
  await b.page.screenshot({ path: "test-results/screenshots/room-two-tabs.png" });
});

test("a page whose connection is cut catches up on reconnect with nothing missing or doubled", async ({ openRoom, baseURL }) => {
  const roomId = await createRoomViaApi(baseURL!, "Flaky network");
  const appPort = Number(new URL(baseURL!).port);
  const proxy = new TcpProxy(appPort + 1, appPort);
  await proxy.start();
  try {
    const a = await openRoom(roomId, { name: "Ada" });
    const b = await openRoom(roomId, { name: "Ben", baseUrl: `http://localhost:${proxy.port}` });

    const kept = await a.addNote();
    await a.writeInNote(kept, "before the cut");
    await expect(b.node(kept).getByTestId("note-text")).toHaveText("before the cut", LIVE);

    await proxy.cut();
    await expect(b.page.getByTestId("connection-status")).not.toHaveAttribute("data-state", "live");
    const written: string[] = [];
    for (let index = 0; index < 4; index++) {
      const id = await a.addNote();
      await a.writeInNote(id, `while offline ${index}`);
      written.push(id);
    }
    await a.writeInNote(kept, "edited while offline");
    await expect(b.nodes()).toHaveCount(1);

    await proxy.restore();
    await expect(b.page.getByTestId("connection-status")).toHaveAttribute("data-state", "live", { timeout: 15_000 });
    for (const [index, id] of written.entries()) {
      await expect(b.node(id).getByTestId("note-text")).toHaveText(`while offline ${index}`);
    }
    await expect(b.node(kept).getByTestId("note-text")).toHaveText("edited while offline");
    await expect(b.nodes()).toHaveCount(5);

    const feedSeqs = await b.page
      .getByTestId("feed-entry")
      .evaluateAll((entries) => entries.map((entry) => entry.getAttribute("data-seq")));
    expect(new Set(feedSeqs).size).toBe(feedSeqs.length);
    const numbers = feedSeqs.map(Number);
    expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, index) => numbers[0]! + index));
    const aSeqs = await a.page.getByTestId("feed-entry").evaluateAll((entries) => entries.map((e) => e.getAttribute("data-seq")));
    expect(feedSeqs).toEqual(aSeqs);
  } finally {
    await proxy.stop();
  }
});

test("a page that was away while its room was deleted says so when it comes back", async ({ openRoom, baseURL }) => {
  const roomId = await createRoomViaApi(baseURL!, "Going away");
  const appPort = Number(new URL(baseURL!).port);
  const proxy = new TcpProxy(appPort + 1, appPort);
  await proxy.start();
  try {
    const away = await openRoom(roomId, { baseUrl: `http://localhost:${proxy.port}` });
    const status = away.page.getByTestId("connection-status");
    await expect(status).toHaveAttribute("data-state", "live");
    await proxy.cut();
    await expect(status).not.toHaveAttribute("data-state", "live");
    // Deleted while the page could not hear it: the room's last signal went by unseen.
    const deleted = await fetch(`${baseURL}/api/admin/rooms/${roomId}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${E2E_ADMIN_TOKEN}` },
    });
    expect(deleted.status).toBe(204);
    await proxy.restore();
    await expect(away.page.getByTestId("room-deleted")).toBeVisible({ timeout: 15_000 });
    await expect(status).toHaveAttribute("data-state", "closed");
  } finally {
    await proxy.stop();
  }
});

test("a spectator sees the room live but cannot change it", async ({ openRoom, baseURL }) => {
  const roomId = await createRoomViaApi(baseURL!, "Read only");
  const a = await openRoom(roomId, { name: "Ada" });
  const spectator = await openRoom(roomId);

  await expect(spectator.page.getByTestId("spectator-badge")).toBeVisible();
  await expect(spectator.page.getByTestId("add-note")).toHaveCount(0);

  const id = await a.addNote();
  await a.writeInNote(id, "only participants write");
  await expect(spectator.node(id).getByTestId("note-text")).toHaveText("only participants write", LIVE);

  await spectator.node(id).getByTestId("note-text").dblclick();
  await expect(spectator.node(id).getByTestId("note-editor")).toHaveCount(0);
  const before = await spectator.position(id);
  await spectator.drag(id, 150, 80);
  expect(await spectator.position(id)).toEqual(before);

  const refused = await spectator.page.evaluate(async (room) => {
    const response = await fetch(`/api/rooms/${room}/nodes`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ text: "sneaky", x: 0, y: 0 }),
    });
    return { status: response.status, body: await response.json() };
  }, roomId);
  expect(refused.status).toBe(403);
  expect(refused.body.error.message).toMatch(/Spectators/);
  await expect(a.nodes()).toHaveCount(1);
});
