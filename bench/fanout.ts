// Live delivery under load: a production server on PostgreSQL, N SSE clients in one room,
// notes written at a steady rate through the real HTTP write path. Prints delivery
// latency, losses and memory per connection beside a bare node:http SSE broadcaster
// measured in the same run, and ends with one line of JSON.
// Usage: npm run bench:fanout [-- --clients=200 --events=600 --rate=50 --warmup=50 --block=50 --instances=1]
// With --instances=2, two production servers run on the one database: the clients and the
// writes are shared between them, so every event reaches half the clients through the other
// instance's notification; the CPU figure is both servers' together, per event.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { startNext } from "../scripts/next-start.mjs";
import { BENCH_SERVER_ENV } from "./support/bench-env";
import { freshPostgres } from "./support/local-postgres";
import { cpuMilliseconds, residentBytes } from "./support/process-stats";
import { type SseClient, connectSse } from "./support/sse-client";
import { args, median, percentile, round } from "./support/stats";

const options = args();
const CLIENTS = Number(options.clients ?? 200);
const EVENTS = Number(options.events ?? 600);
const RATE = Number(options.rate ?? 50);
/** Writes sent before measuring (same rate, not counted), so both servers are measured warm. */
const WARMUP = Number(options.warmup ?? 50);
/** Measured events are sent in blocks of this many, alternating between Parley and the baseline. */
const BLOCK = Number(options.block ?? 50);
/** Parley servers on the same database, sharing the clients and the writes. */
const INSTANCES = Number(options.instances ?? 1);
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
  /** CPU used while measured blocks ran, per measured event: the server(s), and the database server if any. */
  serverCpuPerEvent: number;
  /** The same, each server's own. */
  instanceCpuPerEvent: number[];
  databaseCpuPerEvent: number | null;
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

interface Side {
  /** Clients are spread over these in turn, one per server. */
  streamUrls: string[];
  pids: number[];
  /** The database server's main process, whose CPU is counted with the side's. */
  databasePid?: number | null;
  /** Writes one event carrying `tag` through this side's write path. */
  send: (tag: string) => Promise<void>;
}

/**
 * One side of the comparison: its clients, what they received and when. `connect` measures
 * the server's memory per connection, `warmUp` sends `WARMUP` unmeasured writes (JIT,
 * connection pools, lazily loaded routes), and `block` sends measured events at `RATE` per
 * second and waits until every client has them, so that blocks of the two sides never overlap.
 */
function fanoutSide(side: Side) {
  const sentAt = new Map<number, number>();
  const received = Array.from({ length: CLIENTS }, () => new Map<number, number>());
  const lastId = new Array<number>(CLIENTS).fill(0);
  const afterWrite: number[] = [];
  const writeTimes: number[] = [];
  const clients: SseClient[] = [];
  let duplicates = 0;
  let outOfOrder = 0;
  let sample: string | null = null;
  let bytesPerClient = 0;
  const serverCpu = side.pids.map(() => 0);
  let databaseCpu = 0;
  const memory = async () => (await Promise.all(side.pids.map(memoryOf))).reduce((sum, bytes) => sum + bytes, 0);

  const onData = (index: number) => (data: string, at: number, id: string | null) => {
    const match = data.match(/(bench|warmup)-(\d+)/);
    if (!match) return;
    sample ??= data;
    if (match[1] !== "bench") return;
    const event = Number(match[2]);
    const stamped = data.match(/"timestamp":"([^"]+)"/);
    if (stamped) afterWrite.push(Date.now() - Date.parse(stamped[1]!));
    if (received[index]!.has(event)) duplicates += 1;
    else received[index]!.set(event, at);
    if (id) {
      const seq = Number(id);
      if (seq <= lastId[index]!) outOfOrder += 1;
      lastId[index] = seq;
    }
  };

  return {
    sample: () => sample,
    async connect() {
      const before = await memory();
      for (let index = 0; index < CLIENTS; index++) {
        clients.push(connectSse(side.streamUrls[index % side.streamUrls.length]!, onData(index)));
        if (index % 50 === 49) await Promise.all(clients.slice(-50).map((entry) => entry.ready));
      }
      await Promise.all(clients.map((client) => client.ready));
      await sleep(1000);
      bytesPerClient = Math.max(0, Math.round(((await memory()) - before) / CLIENTS));
    },
    async warmUp() {
      await paced(
        WARMUP,
        (index) => side.send(`warmup-${index}`),
        () => {},
      );
      await sleep(500);
    },
    async block(from: number, count: number) {
      const serverBefore = side.pids.map(cpuMilliseconds);
      const databaseBefore = side.databasePid ? cpuMilliseconds(side.databasePid) : 0;
      await paced(
        count,
        async (index) => {
          await side.send(`bench-${from + index}`);
          writeTimes.push(performance.now() - sentAt.get(from + index)!);
        },
        (index, at) => sentAt.set(from + index, at),
      );
      const deadline = Date.now() + 5_000;
      while (Date.now() < deadline && received.some((map) => map.size < from + count)) await sleep(20);
      side.pids.forEach((pid, index) => {
        serverCpu[index]! += cpuMilliseconds(pid) - serverBefore[index]!;
      });
      if (side.databasePid) databaseCpu += cpuMilliseconds(side.databasePid) - databaseBefore;
    },
    finish(): Measurement {
      for (const client of clients) client.close();
      const latencies: number[] = [];
      for (const map of received) for (const [event, at] of map) latencies.push(at - sentAt.get(event)!);
      return {
        latencies: latencies.sort((a, b) => a - b),
        afterWrite: afterWrite.sort((a, b) => a - b),
        writes: writeTimes.sort((a, b) => a - b),
        lost: CLIENTS * sentAt.size - latencies.length,
        duplicates,
        outOfOrder,
        bytesPerClient,
        serverCpuPerEvent: serverCpu.reduce((sum, cpu) => sum + cpu, 0) / sentAt.size,
        instanceCpuPerEvent: serverCpu.map((cpu) => cpu / sentAt.size),
        databaseCpuPerEvent: side.databasePid ? databaseCpu / sentAt.size : null,
        sample,
      };
    },
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

    const servers: ChildProcess[] = [];
    const bases: string[] = [];
    for (let instance = 0; instance < INSTANCES; instance++) {
      const port = await freePort();
      const server = startNext({
        port,
        nodeArgs: process.env.BENCH_SERVER_NODE_ARGS?.split(" ").filter(Boolean),
        env: { ...process.env, ...BENCH_SERVER_ENV, DATABASE_URL: database.url, PARLEY_WORKER: "0", PARLEY_DEMO_ROOM: "0" },
        stdio: ["ignore", "ignore", "inherit"],
      });
      children.push(server);
      servers.push(server);
      bases.push(`http://127.0.0.1:${port}`);
      await waitFor(`http://127.0.0.1:${port}/api/health`);
    }
    const base = bases[0]!;
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
    const runId = Date.now().toString(36);
    const parleySide = fanoutSide({
      streamUrls: bases.map((origin) => `${origin}/api/rooms/${roomId}/events?after=${lastSeq}`),
      pids: servers.map((server) => server.pid!),
      databasePid: database.postmasterPid,
      async send(tag) {
        const origin = bases[Number(tag.replace(/\D/g, "")) % bases.length]!;
        const response = await fetch(`${origin}/api/rooms/${roomId}/nodes`, {
          method: "POST",
          // As the browser sends it: every write carries an idempotency key.
          headers: { "content-type": "application/json", cookie, "idempotency-key": `${runId}-${tag}` },
          body: JSON.stringify({ text: `${tag} ${padding}`, x: 0, y: 0 }),
        });
        if (response.status !== 201) throw new Error(`write ${tag} answered ${response.status}`);
        await response.arrayBuffer();
      },
    });
    console.log(`Connecting ${CLIENTS} clients to Parley (its production server on PostgreSQL) and warming it up…`);
    await parleySide.connect();
    await parleySide.warmUp();

    // The baseline sends exactly what Parley's clients received (same bytes, same fields
    // to parse), with its own tag and a fresh timestamp.
    const sample = parleySide.sample();
    if (!sample) throw new Error("No Parley event reached a client; nothing to compare.");
    const tagged = /(bench|warmup)-\d+/;
    const stamped = /"timestamp":"[^"]+"/;
    const bareSide = async (env: Record<string, string>, databasePid: number | null) => {
      const bare = spawn(process.execPath, [path.join(import.meta.dirname, "support", "bare-broadcaster.mjs")], {
        env: { ...process.env, DATABASE_URL: "", ...env },
        stdio: ["ignore", "pipe", "inherit"],
      });
      children.push(bare);
      const barePort = await new Promise<number>((resolve, reject) => {
        bare.stdout!.once("data", (chunk: Buffer) => resolve(JSON.parse(chunk.toString()).port));
        bare.once("exit", (code) => reject(new Error(`the bare broadcaster exited with ${code}`)));
      });
      return fanoutSide({
        streamUrls: [`http://127.0.0.1:${barePort}/events`],
        pids: [bare.pid!],
        databasePid,
        async send(tag) {
          const response = await fetch(`http://127.0.0.1:${barePort}/publish`, {
            method: "POST",
            body: sample.replace(tagged, tag).replace(stamped, `"timestamp":"${new Date().toISOString()}"`),
          });
          if (response.status !== 201) throw new Error(`publish ${tag} answered ${response.status}`);
          await response.arrayBuffer();
        },
      });
    };
    const bare = await bareSide({}, null);
    console.log(`Connecting ${CLIENTS} clients to the baseline (bare node:http SSE broadcaster, no database) and warming it up…`);
    await bare.connect();
    await bare.warmUp();
    // What any server that keeps its events must wait for: the same broadcaster, storing each
    // event with one synchronous commit on the same PostgreSQL server before sending it.
    const durable = await bareSide({ DATABASE_URL: database.url }, database.postmasterPid);
    console.log(`Connecting ${CLIENTS} clients to the bare broadcaster that commits each event to PostgreSQL and warming it up…`);
    await durable.connect();
    await durable.warmUp();

    // Blocks of events alternate between the two, so that both see the same machine: on a
    // shared machine, load drifts over tens of seconds.
    console.log(`Measuring ${EVENTS} events each at ${RATE}/s, alternating blocks of ${BLOCK}…`);
    for (let from = 0; from < EVENTS; from += BLOCK) {
      const count = Math.min(BLOCK, EVENTS - from);
      await parleySide.block(from, count);
      await bare.block(from, count);
      await durable.block(from, count);
    }
    const parley = parleySide.finish();
    const baseline = bare.finish();
    const durableBaseline = durable.finish();
    await Promise.all(
      servers.map((server) => {
        server.kill("SIGINT");
        return new Promise((resolve) => server.once("exit", resolve));
      }),
    );

    const result = {
      clients: CLIENTS,
      instances: INSTANCES,
      events: EVENTS,
      warmup_events: WARMUP,
      block_events: BLOCK,
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
      server_cpu_ms_per_event: round(parley.serverCpuPerEvent),
      instance_cpu_ms_per_event: parley.instanceCpuPerEvent.map(round),
      database_cpu_ms_per_event: parley.databaseCpuPerEvent === null ? null : round(parley.databaseCpuPerEvent),
      baseline_cpu_ms_per_event: round(baseline.serverCpuPerEvent),
      durable_baseline_p50_ms: round(percentile(durableBaseline.latencies, 50)),
      durable_baseline_p99_ms: round(percentile(durableBaseline.latencies, 99)),
      durable_baseline_lost: durableBaseline.lost,
      durable_baseline_cpu_ms_per_event: round(durableBaseline.serverCpuPerEvent),
      p99_ratio: 0,
      durable_p99_ratio: 0,
    };
    result.p99_ratio = round(result.p99_ms / result.baseline_p99_ms, 3);
    result.durable_p99_ratio = round(result.p99_ms / result.durable_baseline_p99_ms, 3);

    const row = (label: string, p50: number, p99: number, lost: number, bytes?: number) =>
      console.log(
        `${label.padEnd(30)}${String(p50).padStart(7)}  ${String(p99).padStart(8)}  ${String(lost).padStart(6)}  ${bytes === undefined ? "" : `${(bytes / 1024).toFixed(1).padStart(9)} KiB`}`,
      );
    console.log(`\n${"".padEnd(30)} p50 ms    p99 ms    lost   memory/client`);
    row("Parley (PostgreSQL)", result.p50_ms, result.p99_ms, result.lost, result.bytes_per_client);
    row("bare node:http", result.baseline_p50_ms, result.baseline_p99_ms, result.baseline_lost, result.baseline_bytes_per_client);
    row("bare node:http + one commit", result.durable_baseline_p50_ms, result.durable_baseline_p99_ms, result.durable_baseline_lost);
    console.log(`Parley writes acknowledged in ${result.write_p50_ms} ms (p50), ${result.write_p99_ms} ms (p99).`);
    console.log(
      `From the writing transaction to the client: ${result.after_write_p50_ms} ms (p50), ${result.after_write_p99_ms} ms (p99).`,
    );
    const databaseFigure = result.database_cpu_ms_per_event === null ? "" : `, PostgreSQL ${result.database_cpu_ms_per_event} ms`;
    console.log(
      `CPU per event (write and delivery to ${CLIENTS} clients): Parley ${result.server_cpu_ms_per_event} ms${databaseFigure}; bare node:http ${result.baseline_cpu_ms_per_event} ms; with one commit ${result.durable_baseline_cpu_ms_per_event} ms.`,
    );
    // Measured against the least a server that keeps its events must do: commit each one.
    const met = result.lost === 0 && result.durable_p99_ratio <= 2;
    console.log(
      `\np99 is ${result.p99_ratio}× the bare broadcaster's and ${result.durable_p99_ratio}× that of the one that commits each event; duplicates ${result.duplicates}, out of order ${result.out_of_order}.`,
    );
    console.log(`Targets (p99 within 2× the committing broadcaster's, 0 lost): ${met ? "met" : "NOT met"}.\n`);
    console.log(JSON.stringify({ ...result, targets_met: met }));
  } finally {
    await cleanup();
  }
}

await main();
process.exit(0);
