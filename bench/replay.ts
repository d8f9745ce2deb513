// How quickly a room's timeline shows any moment: rooms of 1,000, 10,000 and 50,000 events,
// seeking to 200 random events. In Chromium (1,000 and 10,000 events), the real room page of a
// replay made from a room log file, from moving the timeline's slider to the page having drawn
// that moment, beside switching back to the moment the page showed before (drawing alone, no
// replay) as the baseline. In Node, the replay alone (all three sizes), beside folding the log
// from its start for every seek (no kept states) as the baseline. Also how fast the log replays
// (events folded a second, kept states and all) and the memory it holds. One JSON line per
// room and place, then one line of JSON with every figure.
// Usage: npm run bench:replay [-- --seeks=200 --sizes=1000,10000,50000 --browser-sizes=1000,10000]
import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { chromium } from "@playwright/test";
import { createRoomStore } from "@/components/room/room-store";
import { RoomReplay, foldEvents, replayStart } from "@/components/timeline/room-replay";
import { roomLogWriter } from "@/lib/events/room-log-file";
import type { StoredEvent } from "@/lib/protocol";
import { roomSnapshot } from "@/test/builders";
import { synthesizeRoomHistory } from "@/test/room-history";
import { startNext } from "../scripts/next-start.mjs";
import { BENCH_SERVER_ENV } from "./support/bench-env";
import { args, percentile, round } from "./support/stats";

const options = args();
const SEEKS = Number(options.seeks ?? 200);
const SIZES = String(options.sizes ?? "1000,10000,50000")
  .split(",")
  .map(Number);
const BROWSER_SIZES = String(options["browser-sizes"] ?? "1000,10000")
  .split(",")
  .map(Number);
/**
 * Seeks the baseline makes in Node: folding from the start costs more the longer the room, so it
 * makes fewer in longer rooms (60 at 1,000 events, 30 at 10,000, 6 at 50,000).
 */
const baselineSeeks = (events: number) => Number(options["baseline-seeks"] ?? Math.max(5, Math.min(60, Math.floor(300_000 / events))));
const TARGET = { events: 10_000, seekP99Ms: 100, heapMb: 100 };
const root = path.resolve(import.meta.dirname, "..");

interface Figures {
  events: number;
  where: "chromium" | "node";
  seek_p50_ms: number;
  seek_p99_ms: number;
  replay_events_per_s: number;
  heap_mb: number;
  /** In Chromium: the seeks' replay alone, without drawing the moment (the rest is the page's drawing). */
  replay_p50_ms?: number;
  replay_p99_ms?: number;
  baseline: string;
  baseline_p50_ms: number;
  baseline_p99_ms: number;
}

/** Random event numbers from 1 to `count`, the same for the same seed. */
function positions(count: number, seeks: number, seed = 1): number[] {
  let state = seed;
  return Array.from({ length: seeks }, () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return 1 + (state % count);
  });
}

function heapMb(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return round(process.memoryUsage().heapUsed / 1024 / 1024, 1);
}

async function inNode(events: StoredEvent[]): Promise<Figures> {
  const start = replayStart(createRoomStore(roomSnapshot(), null).getState());
  const before = heapMb();
  const replay = new RoomReplay({
    start,
    load: async (after, limit) => events.slice(after, after + limit),
    lastSeq: events.length,
  });
  const indexStarted = performance.now();
  await replay.index();
  const indexMs = performance.now() - indexStarted;
  const seeks: number[] = [];
  for (const seq of positions(events.length, SEEKS)) {
    const started = performance.now();
    await replay.stateAt(seq);
    seeks.push(performance.now() - started);
  }
  const heap = round(heapMb() - before, 1);
  const baseline: number[] = [];
  for (const seq of positions(events.length, Math.min(SEEKS, baselineSeeks(events.length)), 2)) {
    const started = performance.now();
    foldEvents(start, events.slice(0, seq));
    baseline.push(performance.now() - started);
  }
  seeks.sort((a, b) => a - b);
  baseline.sort((a, b) => a - b);
  return {
    events: events.length,
    where: "node",
    seek_p50_ms: round(percentile(seeks, 50)),
    seek_p99_ms: round(percentile(seeks, 99)),
    replay_events_per_s: Math.round(events.length / (indexMs / 1000)),
    heap_mb: heap,
    baseline: "fold from the start",
    baseline_p50_ms: round(percentile(baseline, 50)),
    baseline_p99_ms: round(percentile(baseline, 99)),
  };
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function waitFor(url: string) {
  for (let attempt = 0; attempt < 480; attempt++) {
    if ((await fetch(url).catch(() => null))?.ok) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${url} did not come up`);
}

/** A room log file of `events`, as "Share as a file" writes one. */
function logFile(events: StoredEvent[]): string {
  const writer = roomLogWriter(
    { id: events[0]!.room_id, title: `${events.length} events`, template: "creative-canvas", createdAt: events[0]!.timestamp },
    events.length,
  );
  return writer.header() + events.map((event) => writer.event(event)).join("") + writer.end();
}

async function inChromium(baseUrl: string, events: StoredEvent[]): Promise<Figures> {
  const imported = await fetch(`${baseUrl}/api/rooms/replays`, {
    method: "POST",
    headers: { "content-type": "application/x-ndjson" },
    body: logFile(events),
  });
  if (imported.status !== 201) throw new Error(`Could not import the room: ${imported.status} ${await imported.text()}`);
  const { room } = (await imported.json()) as { room: { id: string } };
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu"],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    const cdp = await page.context().newCDPSession(page);
    const indexStarted = Date.now();
    await page.goto(`${baseUrl}/rooms/${room.id}`);
    // A replay opens at its end: the page reads and folds its whole log first.
    await page.locator(`[data-testid="timeline-position"][data-shown="${events.length}"]`).waitFor({ timeout: 120_000 });
    const indexMs = Date.now() - indexStarted;
    const measure = (targets: number[]) =>
      page.evaluate(async (seqs) => {
        const slider = document.querySelector<HTMLInputElement>('[data-testid="timeline-slider"]')!;
        const shown = document.querySelector<HTMLElement>('[data-testid="timeline-position"]')!;
        const setValue = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value")!.set!;
        const times: number[] = [];
        const replays: number[] = [];
        for (const seq of seqs) {
          const started = performance.now();
          setValue.call(slider, String(seq));
          slider.dispatchEvent(new Event("input", { bubbles: true }));
          while (shown.dataset.shown !== String(seq)) await new Promise((resolve) => setTimeout(resolve, 0));
          // Drawn: the frame after React committed the moment.
          await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
          times.push(performance.now() - started);
          replays.push(performance.getEntriesByName("parley:replay").at(-1)?.duration ?? Number.NaN);
        }
        return { times, replays };
      }, targets);
    const measured = await measure(positions(events.length, SEEKS));
    const seeks = measured.times.sort((a, b) => a - b);
    const replays = measured.replays.sort((a, b) => a - b);
    // The baseline: going back and forth between two moments already shown — the page draws, nothing is replayed that far.
    const baseline = (
      await measure(Array.from({ length: Math.min(SEEKS, 100) }, (_, index) => (index % 2 ? events.length : events.length - 1)))
    ).times.sort((a, b) => a - b);
    await cdp.send("HeapProfiler.collectGarbage");
    const { usedSize } = (await cdp.send("Runtime.getHeapUsage")) as { usedSize: number };
    return {
      events: events.length,
      where: "chromium",
      seek_p50_ms: round(percentile(seeks, 50)),
      seek_p99_ms: round(percentile(seeks, 99)),
      replay_events_per_s: Math.round(events.length / (indexMs / 1000)),
      heap_mb: round(usedSize / 1024 / 1024, 1),
      replay_p50_ms: round(percentile(replays, 50)),
      replay_p99_ms: round(percentile(replays, 99)),
      baseline: "between two moments already replayed",
      baseline_p50_ms: round(percentile(baseline, 50)),
      baseline_p99_ms: round(percentile(baseline, 99)),
    };
  } finally {
    await browser.close();
  }
}

async function main() {
  const results: Figures[] = [];
  const histories = new Map(SIZES.concat(BROWSER_SIZES).map((size) => [size, synthesizeRoomHistory(size, 42, `bench-${size}`)]));
  for (const size of SIZES) {
    const figures = await inNode(histories.get(size)!);
    results.push(figures);
    console.log(JSON.stringify(figures));
  }
  if (BROWSER_SIZES.length && BROWSER_SIZES[0]) {
    if (!fs.existsSync(path.join(root, ".next", "BUILD_ID"))) throw new Error("Build Parley first: npx next build");
    const port = await freePort();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-bench-replay-"));
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...BENCH_SERVER_ENV,
      PARLEY_DATA_DIR: dataDir,
      PARLEY_DEMO_ROOM: "0",
      PARLEY_IMPORTS_PER_HOUR: "0",
    };
    delete env.DATABASE_URL;
    const server: ChildProcess = startNext({ port, env, stdio: "ignore" });
    try {
      await waitFor(`http://127.0.0.1:${port}/api/health`);
      for (const size of BROWSER_SIZES) {
        const figures = await inChromium(`http://127.0.0.1:${port}`, histories.get(size)!);
        results.push(figures);
        console.log(JSON.stringify(figures));
      }
    } finally {
      server.kill("SIGTERM");
      await new Promise((resolve) => server.once("exit", resolve));
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }
  const target = results.find((figures) => figures.where === "chromium" && figures.events === TARGET.events);
  const met = target ? target.seek_p99_ms <= TARGET.seekP99Ms && target.heap_mb <= TARGET.heapMb : null;
  console.log(
    `\nTarget at ${TARGET.events.toLocaleString("en-US")} events in Chromium: seek p99 ≤ ${TARGET.seekP99Ms} ms, heap ≤ ${TARGET.heapMb} MB — ${met === null ? "not measured" : met ? "met" : "NOT met"}`,
  );
  console.log(JSON.stringify({ bench: "replay", seeks: SEEKS, target_met: met, results }));
}

await main();
