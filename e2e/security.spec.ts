import { E2E_ADMIN_TOKEN } from "./support/constants";
import { expect, test } from "./support/fixtures";
import { RoomPage, createRoomViaApi } from "./support/room-page";
import { watchViolations } from "./support/watch-violations";

function expectPageHeaders(headers: Record<string, string>) {
  const policy = headers["content-security-policy"] ?? "";
  expect(policy).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+' 'strict-dynamic'/);
  expect(policy).not.toMatch(/script-src[^;]*'unsafe-(inline|eval)'/);
  expect(policy).toContain("frame-ancestors 'none'");
  expect(headers["x-content-type-options"]).toBe("nosniff");
  expect(headers["referrer-policy"]).toBe("same-origin");
}

test("pages carry the security headers and work under their policy with no violation", async ({ page, browser, baseURL }) => {
  const violations = await watchViolations(page);

  // Home: the rooms list and the form to create one, hydrated (the button reacts to typing).
  const home = await page.goto("/");
  expectPageHeaders(home!.headers());
  await page.getByTestId("room-task-input").fill("Under the policy");
  await expect(page.getByTestId("create-room")).toBeEnabled();
  await page.getByTestId("create-room").click();
  await expect(page).toHaveURL(/\/rooms\//);
  const roomId = page.url().split("/rooms/")[1]!;

  // A room with live updates: a note another participant adds appears here through the event stream.
  const room = new RoomPage(page);
  await expect(page.getByTestId("connection-status")).toHaveAttribute("data-state", "live");
  // What the room may still spend today: its default budget, the scripted model costing nothing.
  await expect(page.getByTestId("budget-left")).toHaveText("$5.00 left today");
  const roomAnswer = await page.request.get(`/rooms/${roomId}`);
  expectPageHeaders(roomAnswer.headers());
  const nonces = new Set([home!.headers()["content-security-policy"], roomAnswer.headers()["content-security-policy"]]);
  expect(nonces.size).toBe(2);
  await room.takeSeat("Ada");
  const other = await browser.newContext();
  try {
    const ben = new RoomPage(await other.newPage());
    await ben.goto(roomId);
    await ben.takeSeat("Ben");
    const added = await ben.addNote();
    await expect(room.node(added)).toBeVisible();
    await ben.writeInNote(added, "Lanterns on the water");
    await expect(room.node(added).getByTestId("note-text")).toHaveText("Lanterns on the water");
  } finally {
    await other.close();
  }

  // The dashboard: sign in, and see it.
  const admin = await page.goto("/admin");
  expectPageHeaders(admin!.headers());
  await page.getByTestId("admin-token-input").fill(E2E_ADMIN_TOKEN);
  await page.getByTestId("admin-sign-in-submit").click();
  await expect(page.getByTestId("admin-dashboard")).toBeVisible();

  expect(violations.errors).toEqual([]);

  // A page that does not exist is rendered under the policy too (its 404 is the one error logged).
  const missing = await page.goto("/no/such/page");
  expect(missing!.status()).toBe(404);
  expectPageHeaders(missing!.headers());

  expect(violations.csp).toEqual([]);
});

test("API answers are JSON with the security headers, and writes from another site are refused", async ({ request, baseURL }) => {
  const health = await request.get("/api/health");
  expect(health.headers()["content-security-policy"]).toBe("default-src 'none'; frame-ancestors 'none'");
  expect(health.headers()["x-content-type-options"]).toBe("nosniff");

  for (const path of ["/api", "/api/no/such/thing"]) {
    const missing = await request.get(path);
    expect(missing.status()).toBe(404);
    expect(missing.headers()["content-type"]).toMatch(/application\/json/);
    expect(await missing.json()).toMatchObject({ error: { code: "not_found", message: `There is no API at ${path}.` } });
  }

  const wrongMethod = await request.put("/api/rooms", { data: {} });
  expect(wrongMethod.status()).toBe(405);
  expect(wrongMethod.headers()["allow"]).toBe("GET, POST");
  expect(await wrongMethod.json()).toMatchObject({ error: { code: "method_not_allowed" } });

  const roomId = await createRoomViaApi(baseURL!, "Cross-site");
  const forged = await request.post(`/api/rooms/${roomId}/seat`, {
    headers: { origin: "https://evil.example" },
    data: { displayName: "Mallory" },
  });
  expect(forged.status()).toBe(403);
  expect(await forged.json()).toMatchObject({
    error: { code: "forbidden", message: expect.stringMatching(/not from https:\/\/evil.example/) },
  });
  const own = await request.post(`/api/rooms/${roomId}/seat`, { headers: { origin: baseURL! }, data: { displayName: "Ada" } });
  expect(own.status()).toBe(201);
  // The live path's canvas writes refuse another site's too (they check it themselves).
  const forgedNote = await request.post(`/api/rooms/${roomId}/nodes`, {
    headers: { origin: "https://evil.example" },
    data: { text: "x", x: 0, y: 0 },
  });
  expect(forgedNote.status()).toBe(403);
  expect(await forgedNote.json()).toMatchObject({ error: { code: "forbidden" } });
  const ownNote = await request.post(`/api/rooms/${roomId}/nodes`, { headers: { origin: baseURL! }, data: { text: "x", x: 0, y: 0 } });
  expect(ownNote.status()).toBe(201);

  // The room's event stream is still the Pages route, not the catch-all.
  const stream = await fetch(`${baseURL}/api/rooms/${roomId}/events`, { signal: AbortSignal.timeout(3000) });
  expect(stream.headers.get("content-type")).toMatch(/text\/event-stream/);
  await stream.body?.cancel();
});

test("twenty copies of one edge update under one Idempotency-Key all get the original answer", async ({ request, baseURL }) => {
  const roomId = await createRoomViaApi(baseURL!, "Retries");
  const seat = await request.post(`/api/rooms/${roomId}/seat`, { data: { displayName: "Ada" } });
  expect(seat.status()).toBe(201);
  const note = async (text: string) =>
    (await (await request.post(`/api/rooms/${roomId}/nodes`, { data: { text, x: 0, y: 0 } })).json()).node.id as string;
  const [source, target] = [await note("a"), await note("b")];
  const edge = (
    await (await request.post(`/api/rooms/${roomId}/edges`, { data: { sourceId: source, targetId: target, label: "before" } })).json()
  ).edge;
  const copies = await Promise.all(
    Array.from({ length: 20 }, () =>
      request.patch(`/api/rooms/${roomId}/edges/${edge.id}`, { headers: { "idempotency-key": "relabel-once" }, data: { label: "after" } }),
    ),
  );
  const answers = await Promise.all(copies.map(async (copy) => ({ status: copy.status(), body: await copy.json() })));
  expect(answers[0]!.status).toBe(200);
  for (const answer of answers) expect(answer).toEqual(answers[0]);
});
