import { expect, test } from "./support/fixtures";
import { configureRoom, createRoomViaApi } from "./support/room-page";

test("the header counts down to the scheduler's next turn, also after a turn that found the room busy", async ({ openRoom, baseURL }) => {
  const roomId = await createRoomViaApi(baseURL!, "A busy harbour");
  // One run at a time, and the first run waits on a question to the room: every later turn finds the room busy.
  await configureRoom(baseURL!, roomId, {
    broadcast: "human",
    broadcast_sensitivity: "high",
    broadcast_timeout: 300,
    max_concurrent_runs: 1,
    scheduler_interval_seconds: 8,
  });
  const room = await openRoom(roomId);
  await configureRoom(baseURL!, roomId, { scheduler_enabled: true });
  await expect(room.page.getByTestId("human-question")).toBeVisible({ timeout: 15_000 });

  const next = room.page.getByTestId("next-turn");
  const turnAt = async () => Number(await next.getAttribute("data-at"));
  const first = await turnAt();
  expect(first).toBeGreaterThan(0);

  // The seconds shown are those left until the turn, and the header never says "any moment" for long,
  // although no turn after the first starts anyone. Each reading is taken when the header changes.
  const seen: { text: string; left: number; at: number }[] = [];
  const started = Date.now();
  while (Date.now() - started < 20_000) {
    // Read in one go: a turn taken between separate reads would pair one turn's text with the next one's time.
    const [text, at, now] = await next.evaluate(
      (element: HTMLElement) => [element.textContent ?? "", Number(element.dataset.at), Date.now()] as const,
    );
    seen.push({ text, left: Math.ceil((at - now) / 1000), at: now });
    // "any moment" for more than a few seconds fails here, as the count below would.
    await expect(next, seen.map((sample) => sample.text).join(" | ")).not.toHaveText(text, { timeout: 5_000 });
  }
  for (const { text, left } of seen) {
    if (left > 0) expect(text).toMatch(new RegExp(`in (${left}|${left + 1}|${left - 1}) s$`));
  }
  // How long the header said "any moment" at a stretch: from the first such reading to the next other one.
  let since: number | null = null;
  let longest = 0;
  for (const { text, at } of seen) {
    if (text.endsWith("any moment")) since ??= at;
    else if (since !== null) {
      longest = Math.max(longest, at - since);
      since = null;
    }
  }
  expect(longest, seen.map((sample) => sample.text).join(" | ")).toBeLessThanOrEqual(3_000);

  // Two busy turns came and went, each moving the next one an interval on.
  const last = await turnAt();
  expect(last - first).toBeGreaterThanOrEqual(16_000);
  expect(last - first).toBeLessThan(30_000);
  await expect(room.page.getByTestId("human-question")).toBeVisible();
  // The first run is still the only one: it waits on its question.
  await expect(room.page.getByTestId("agent-status").filter({ hasText: "asking the room" })).toHaveCount(1);
});
