// Live delivery under load: a production server on PostgreSQL, N SSE clients in one room,
// notes written at a steady rate through the real HTTP write path. Prints delivery
// latency, losses and memory per connection beside a bare node:http SSE broadcaster
// measured in the same run, and ends with one line of JSON.
// Usage: npm run bench:fanout [-- --clients=200 --events=300 --rate=50 --warmup=50]
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { freshPostgres } from "./support/local-postgres";
import { residentBytes } from "./support/process-memory";
import { type SseClient, connectSse } from "./support/sse-client";
import { args, median, percentile, round } from "./support/stats";

const options = args();
const CLIENTS = Number(options.clients ?? 200);
const EVENTS = Number(options.events ?? 300);
const RATE = Number(options.rate ?? 50);
/** Writes sent before measuring (same rate, not counted), so both servers are measured warm. */
const WARMUP = Number(options.warmup ?? 50);
const root = path.resolve(import.meta.dirname, "..");
const children: ChildProcess[] = [];

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(url: string, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not up yet
    }
    await sleep(250);
  }
  throw new Error(`${url} did not come up`);
}

async function memoryOf(pid: number): Promise<number> {
  const samples: number[] = [];
  for (let index = 0; index < 5; index++) {
    samples.push(residentBytes(pid));
    await sleep(150);
  }
  return median(samples);
}

interface Measurement {
  latencies: number[];
  /** From the event's own timestamp (taken in the writing transaction) to receipt, in whole ms. */
  afterWrite: number[];
  /** How long each write took to be acknowledged. */
  writes: number[];
  lost: number;
  duplicates: number;
  outOfOrder: number;
  bytesPerClient: number;
  /** The data of one measured event as a client received it. */
  sample: string | null;
}

/** Sends `count` writes at `RATE` per second, the first due now; resolves when all are acknowledged. */
async function paced(count: number, send: (index: number) => Promise<void>, onSent: (index: number, at: number) => void) {
  const interval = 1000 / RATE;
  const started = performance.now();
  const writes: Promise<void>[] = [];
  for (let index = 0; index < count; index++) {
    const due = started + index * interval;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    onSent(index, performance.now());
    writes.push(send(index));
  }
  await Promise.all(writes);
}

/**
 * Connects the clients, measures memory, warms the server up with `WARMUP` writes that are
 * not measured (JIT, connection pools, lazily loaded routes), then sends `EVENTS` events at
 * `RATE` per second with `send(tag)` and waits for every client to receive each one (the
 * measured ones are tagged `bench-<index>`).
 */
async function measure(streamUrl: string, pid: number, send: (tag: string) => Promise<void>): Promise<Measurement> {
  const sentAt = new Map<number, number>();
  const received = Array.from({ length: CLIENTS }, () => new Map<number, number>());
  const lastId = new Array<number>(CLIENTS).fill(0);
  let duplicates = 0;
  let outOfOrder = 0;
  const afterWrite: number[] = [];
  let sample: string | null = null;
  const before = await memoryOf(pid);
  const clients: SseClient[] = [];
  for (let index = 0; index < CLIENTS; index++) {
    const client = connectSse(streamUrl, (data, at, id) => {
      const match = data.match(/bench-(\d+)/);
      if (!match) return;
      const event = Number(match[1]);
      sample ??= data;
      const stamped = data.match(/"timestamp":"([^"]+)"/);
      if (stamped) afterWrite.push(Date.now() - Date.parse(stamped[1]!));
      if (received[index]!.has(event)) duplicates += 1;
      else received[index]!.set(event, at);
      if (id) {
        const seq = Number(id);
        if (seq <= lastId[index]!) outOfOrder += 1;
        lastId[index] = seq;
      }
    });
    clients.push(client);
    if (index % 50 === 49) await Promise.all(clients.slice(-50).map((entry) => entry.ready));
  }
  await Promise.all(clients.map((client) => client.ready));
  await sleep(1000);
  const after = await memoryOf(pid);

  await paced(WARMUP, (index) => send(`warmup-${index}`), () => {});
  await sleep(500);

  const writeTimes: number[] = [];
  await paced(
    EVENTS,
    async (index) => {
      await send(`bench-${index}`);
      writeTimes.push(performance.now() - sentAt.get(index)!);
    },
    (index, at) => sentAt.set(index, at),
  );
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline && received.some((map) => map.size < EVENTS)) await sleep(100);
  for (const client of clients) client.close();

  const latencies: number[] = [];
  let delivered = 0;
  for (const map of received) {
    for (const [event, at] of map) {
      latencies.push(at - sentAt.get(event)!);
      delivered += 1;
    }
  }
  return {
    latencies: latencies.sort((a, b) => a - b),
    afterWrite: afterWrite.sort((a, b) => a - b),
    writes: writeTimes.sort((a, b) => a - b),
    lost: CLIENTS * EVENTS - delivered,
    duplicates,
    outOfOrder,
    bytesPerClient: Math.max(0, Math.round((after - before) / CLIENTS)),
    sample,
  };
}

async function main() {
  const database = await freshPostgres();
  if (!database) throw new Error("No PostgreSQL server answered at 127.0.0.1:5432; set BENCH_DATABASE_URL to a local server.");
  const cleanup = async () => {
    for (const child of children) child.kill("SIGTERM");
    await database.drop();
  };
  process.on("SIGINT", () => void cleanup().then(() => process.exit(130)));
  try {
    if (!fs.existsSync(path.join(root, ".next", "BUILD_ID"))) {
      console.log("Building the app (next build)…");
      const build = spawnSync(path.join(root, "node_modules", ".bin", "next"), ["build"], { cwd: root, stdio: "inherit" });
      if (build.status !== 0) throw new Error("next build failed");
    }

    const port = await freePort();
    const server = spawn(process.execPath, [...(process.env.BENCH_SERVER_NODE_ARGS?.split(" ").filter(Boolean) ?? []), path.join(root, "node_modules", "next", "dist", "bin", "next"), "start", "-p", String(port)], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: database.url, PARLEY_WORKER: "0", PARLEY_DEMO_ROOM: "0", PORT: String(port), NODE_ENV: "production" },
      stdio: ["ignore", "ignore", "inherit"],
    });
    children.push(server);
    const base = `http://127.0.0.1:${port}`;
    await waitFor(`${base}/api/health`);
    const room = await (
      await fetch(`${base}/api/rooms`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ title: "Fan-out benchmark", template: "creative-canvas" }),
      })
    ).json();
    const roomId = room.room.id as string;
    const seat = await fetch(`${base}/api/rooms/${roomId}/seat`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ displayName: "Bench" }),
    });
    const cookie = seat.headers.get("set-cookie")!.split(";")[0]!;
    const lastSeq = ((await (await fetch(`${base}/api/rooms/${roomId}`)).json()) as { lastSeq: number }).lastSeq;

    const padding = "·".repeat(120);
    console.log(`Parley (next start on PostgreSQL): ${CLIENTS} clients, ${EVENTS} events at ${RATE}/s after ${WARMUP} warm-up writes…`);
    const parley = await measure(`${base}/api/rooms/${roomId}/events?after=${lastSeq}`, server.pid!, async (tag) => {
      const response = await fetch(`${base}/api/rooms/${roomId}/nodes`, {
        method: "POST",
        headers: { "content-type": "application/json", cookie },
        body: JSON.stringify({ text: `${tag} ${padding}`, x: 0, y: 0 }),
      });
      if (response.status !== 201) throw new Error(`write ${tag} answered ${response.status}`);
      await response.arrayBuffer();
    });
    server.kill("SIGINT");
    await new Promise((resolve) => server.once("exit", resolve));

    // The baseline sends exactly what Parley's clients received (same bytes, same fields
    // to parse), with its own tag and a fresh timestamp.
    const sample = parley.sample;
    if (!sample) throw new Error("No Parley event reached a client; nothing to compare.");
    const tagged = /bench-\d+/;
    const stamped = /"timestamp":"[^"]+"/;
    const bare = spawn(process.execPath, [path.join(import.meta.dirname, "support", "bare-broadcaster.mjs")], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    children.push(bare);
    const barePort = await new Promise<number>((resolve) => {
      bare.stdout!.once("data", (chunk: Buffer) => resolve(JSON.parse(chunk.toString()).port));
    });
    console.log("Baseline (bare node:http SSE broadcaster, no database)…");
    const baseline = await measure(`http://127.0.0.1:${barePort}/events`, bare.pid!, async (tag) => {
      const response = await fetch(`http://127.0.0.1:${barePort}/publish`, {
        method: "POST",
        body: sample.replace(tagged, tag).replace(stamped, `"timestamp":"${new Date().toISOString()}"`),
      });
      await response.arrayBuffer();
    });
    bare.kill("SIGTERM");

    const result = {
      clients: CLIENTS,
      events: EVENTS,
      warmup_events: WARMUP,
      rate_per_s: RATE,
      driver: "postgres",
      lost: parley.lost,
      duplicates: parley.duplicates,
      out_of_order: parley.outOfOrder,
      p50_ms: round(percentile(parley.latencies, 50)),
      p99_ms: round(percentile(parley.latencies, 99)),
      max_ms: round(parley.latencies.at(-1) ?? Number.NaN),
      bytes_per_client: parley.bytesPerClient,
      after_write_p50_ms: round(percentile(parley.afterWrite, 50)),
      after_write_p99_ms: round(percentile(parley.afterWrite, 99)),
      write_p50_ms: round(percentile(parley.writes, 50)),
      write_p99_ms: round(percentile(parley.writes, 99)),
      baseline_p50_ms: round(percentile(baseline.latencies, 50)),
      baseline_p99_ms: round(percentile(baseline.latencies, 99)),
      baseline_lost: baseline.lost,
      baseline_bytes_per_client: baseline.bytesPerClient,
      p99_ratio: 0,
    };
    result.p99_ratio = round(result.p99_ms / result.baseline_p99_ms, 3);

    console.log("\n                      p50 ms    p99 ms    lost   memory/client");
    console.log(
      `Parley (PostgreSQL)  ${String(result.p50_ms).padStart(7)}  ${String(result.p99_ms).padStart(8)}  ${String(result.lost).padStart(6)}  ${(result.bytes_per_client / 1024).toFixed(1).padStart(9)} KiB`,
    );
    console.log(
      `bare node:http       ${String(result.baseline_p50_ms).padStart(7)}  ${String(result.baseline_p99_ms).padStart(8)}  ${String(result.baseline_lost).padStart(6)}  ${(result.baseline_bytes_per_client / 1024).toFixed(1).padStart(9)} KiB`,
    );
    console.log(`Parley writes acknowledged in ${result.write_p50_ms} ms (p50), ${result.write_p99_ms} ms (p99).`);
    console.log(
      `From the writing transaction to the client: ${result.after_write_p50_ms} ms (p50), ${result.after_write_p99_ms} ms (p99).`,
    );
    const met = result.lost === 0 && result.p99_ratio <= 2;
    console.log(`\np99 is ${result.p99_ratio}× the bare broadcaster's; duplicates ${result.duplicates}, out of order ${result.out_of_order}.`);
    console.log(`Targets (p99 within 2× the baseline, 0 lost): ${met ? "met" : "NOT met"}.\n`);
    console.log(JSON.stringify({ ...result, targets_met: met }));
  } finally {
    await cleanup();
  }
}

await main();
process.exit(0);
