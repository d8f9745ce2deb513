// How fast an agent's work reaches the people watching: from the model's last byte to a viewer
// receiving the node it asked for, with Parley on PostgreSQL and an agent on the
// OpenAI-compatible provider pointed at a local stand-in model server, beside a baseline
// process that on the same stand-in reply stores the node with one durable INSERT and pushes it
// to its own viewers in-process. Ends with one line of JSON.
// Usage: npm run bench:live [-- --samples=200 --warmup=20 --block=20]
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import postgres from "postgres";
import { startNext } from "../scripts/next-start.mjs";
import { startChatStandIn } from "./support/chat-stand-in";
import { BENCH_SERVER_ENV } from "./support/bench-env";
import { freshPostgres } from "./support/local-postgres";
import { benchReceiver } from "./support/otel";
import { connectSse } from "./support/sse-client";
import { args, percentile, round } from "./support/stats";

const options = args();
const SAMPLES = Number(options.samples ?? 200);
const WARMUP = Number(options.warmup ?? 20);
const BLOCK = Number(options.block ?? 20);
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

async function waitFor(url: string) {
  for (let attempt = 0; attempt < 240; attempt++) {
    if ((await fetch(url).catch(() => null))?.ok) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${url} did not come up`);
}

/**
 * Waits until `check` holds, looking again each time an event stream hands over data
 * (`arrived`). Waiting is idle: a poll that spun the event loop would take a core from the
 * processes being measured, which share the machine's two.
 */
const waiters = new Set<() => void>();
function arrived() {
  for (const wake of waiters) wake();
}
async function until(check: () => boolean, timeoutMs = 10_000) {
  if (check()) return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      waiters.delete(wake);
      reject(new Error("timed out waiting for a node to reach its viewer"));
    }, timeoutMs);
    const wake = () => {
      if (!check()) return;
      clearTimeout(timer);
      waiters.delete(wake);
      resolve();
    };
    waiters.add(wake);
  });
}

interface Sample {
  replyToViewer: number;
  runToNode: number;
}

async function main() {
  const database = await freshPostgres();
  if (!database) throw new Error("No PostgreSQL server answered at 127.0.0.1:5432; set BENCH_DATABASE_URL to a local server.");
  const standIn = await startChatStandIn();
  const cleanup = async () => {
    // The servers stop first (their worker leaves the database as it goes), then the database.
    await Promise.all(
      children.map((child) => {
        if (child.exitCode !== null || child.signalCode !== null) return null;
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        return exited;
      }),
    );
    await standIn.close();
    await database.drop();
  };
  process.on("SIGINT", () => void cleanup().then(() => process.exit(130)));
  try {
    if (!fs.existsSync(path.join(root, ".next", "BUILD_ID"))) {
      console.log("Building the app (next build)…");
      const build = spawnSync(path.join(root, "node_modules", ".bin", "next"), ["build"], { cwd: root, stdio: "inherit" });
      if (build.status !== 0) throw new Error("next build failed");
    }

    // Parley, its worker running the agents, on PostgreSQL (with BENCH_OTEL=1, sending traces to a local receiver).
    const otlpEndpoint = await benchReceiver();
    const port = await freePort();
    children.push(
      startNext({
        port,
        nodeArgs: process.env.BENCH_SERVER_NODE_ARGS?.split(" ").filter(Boolean),
        env: {
          ...process.env,
          ...BENCH_SERVER_ENV,
          DATABASE_URL: database.url,
          PARLEY_DEMO_ROOM: "0",
          OPENAI_COMPATIBLE_BASE_URL: standIn.baseURL,
          OPENAI_COMPATIBLE_API_KEY: "stand-in",
          ...(otlpEndpoint ? { OTEL_EXPORTER_OTLP_ENDPOINT: otlpEndpoint } : {}),
        },
        stdio: ["ignore", "ignore", "inherit"],
      }),
    );
    const base = `http://127.0.0.1:${port}`;
    await waitFor(`${base}/api/health`);
    const created = await (
      await fetch(`${base}/api/rooms`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ title: "Live benchmark", template: "creative-canvas" }),
      })
    ).json();
    const roomId = created.room.id as string;
    const agent = (created.agents as { id: string }[])[0]!;
    // The agent talks to the stand-in instead of the offline script model.
    const sql = postgres(database.url, { max: 1, onnotice: () => {} });
    await sql`update agents set model = 'openai-compatible:stand-in' where id = ${agent.id}`;
    await sql.end();
    const seat = await fetch(`${base}/api/rooms/${roomId}/seat`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ displayName: "Bench" }),
    });
    const cookie = seat.headers.get("set-cookie")!.split(";")[0]!;
    const lastSeq = ((await (await fetch(`${base}/api/rooms/${roomId}`)).json()) as { lastSeq: number }).lastSeq;

    // The baselines, on the same PostgreSQL server and the same stand-in: one reading the
    // answer by hand, one letting the AI SDK read it and run the tool.
    const startBaseline = async (reader: "hand" | "sdk") => {
      const baseline = spawn(process.execPath, [path.join(import.meta.dirname, "support", "live-baseline.mjs")], {
        env: { ...process.env, DATABASE_URL: database.url, STAND_IN_URL: standIn.baseURL, BASELINE_READER: reader },
        stdio: ["ignore", "pipe", "inherit"],
      });
      children.push(baseline);
      const baselinePort = await new Promise<number>((resolve, reject) => {
        baseline.stdout!.once("data", (line: Buffer) => resolve(JSON.parse(line.toString()).port));
        baseline.once("exit", (code) => reject(new Error(`the ${reader} baseline exited with ${code}`)));
      });
      return `http://127.0.0.1:${baselinePort}`;
    };
    const baselineBase = await startBaseline("hand");
    const sdkBaselineBase = await startBaseline("sdk");

    // One viewer on each side: the node's arrival, by the tag it carries.
    const seen = new Map<string, number>();
    const onData = (data: string, receivedAt: number) => {
      if (!data.includes('"node.created"')) return;
      const text = (JSON.parse(data) as { payload: { node: { text: string } } }).payload.node.text;
      if (!seen.has(text)) seen.set(text, receivedAt);
      arrived();
    };
    const parleyViewer = connectSse(`${base}/api/rooms/${roomId}/events?after=${lastSeq}`, onData);
    const baselineViewer = connectSse(`${baselineBase}/events`, onData);
    const sdkBaselineViewer = connectSse(`${sdkBaselineBase}/events`, onData);
    await Promise.all([parleyViewer.ready, baselineViewer.ready, sdkBaselineViewer.ready]);

    const runId = Date.now().toString(36);
    let counter = 0;
    const parleyOnce = async (): Promise<Sample> => {
      const tag = `live-${runId}-${counter++}`;
      const requested = performance.now();
      const started = await fetch(`${base}/api/rooms/${roomId}/runs`, {
        method: "POST",
        headers: { "content-type": "application/json", cookie },
        body: JSON.stringify({ agentId: agent.id, prompt: `Write one line for the canvas: ${tag}` }),
      });
      if (started.status !== 201) throw new Error(`starting a run answered ${started.status}: ${await started.text()}`);
      await until(() => seen.has(tag));
      // The run's second model call and its end, so that the next run starts on an idle agent.
      const runAnswer = ((await started.json()) as { run: { id: string } }).run.id;
      await until(() => finishedRuns.has(runAnswer));
      return { replyToViewer: seen.get(tag)! - standIn.lastByteAt.get(tag)!, runToNode: seen.get(tag)! - requested };
    };
    const finishedRuns = new Set<string>();
    const runWatcher = connectSse(`${base}/api/rooms/${roomId}/events?after=${lastSeq}`, (data) => {
      if (data.includes('"run.finished"')) finishedRuns.add((JSON.parse(data) as { payload: { runId: string } }).payload.runId);
      arrived();
    });
    await runWatcher.ready;
    const baselineOnce = async (baselineAt = baselineBase): Promise<Sample> => {
      const tag = `live-${runId}-${counter++}`;
      const requested = performance.now();
      const answer = await fetch(`${baselineAt}/trigger`, { method: "POST", body: tag });
      if (answer.status !== 201) throw new Error(`the baseline answered ${answer.status}`);
      await until(() => seen.has(tag));
      return { replyToViewer: seen.get(tag)! - standIn.lastByteAt.get(tag)!, runToNode: seen.get(tag)! - requested };
    };

    console.log(`Warming up (${WARMUP} runs each side), then ${SAMPLES} samples each side in alternating blocks of ${BLOCK}…`);
    for (let index = 0; index < WARMUP; index++) {
      await parleyOnce();
      await baselineOnce();
      await baselineOnce(sdkBaselineBase);
    }
    const parley: Sample[] = [];
    const bare: Sample[] = [];
    const sdk: Sample[] = [];
    while (parley.length < SAMPLES) {
      for (let index = 0; index < BLOCK && parley.length < SAMPLES; index++) parley.push(await parleyOnce());
      for (let index = 0; index < BLOCK && bare.length < SAMPLES; index++) bare.push(await baselineOnce());
      for (let index = 0; index < BLOCK && sdk.length < SAMPLES; index++) sdk.push(await baselineOnce(sdkBaselineBase));
    }
    parleyViewer.close();
    baselineViewer.close();
    sdkBaselineViewer.close();
    runWatcher.close();

    const figures = (samples: Sample[], pick: (sample: Sample) => number) => {
      const sorted = samples.map(pick).sort((a, b) => a - b);
      return { p50: round(percentile(sorted, 50)), p99: round(percentile(sorted, 99)) };
    };
    const reply = figures(parley, (sample) => sample.replyToViewer);
    const run = figures(parley, (sample) => sample.runToNode);
    const floor = figures(bare, (sample) => sample.replyToViewer);
    const floorRun = figures(bare, (sample) => sample.runToNode);
    const sdkFloor = figures(sdk, (sample) => sample.replyToViewer);
    const ratio = round(reply.p99 / floor.p99, 3);
    const sdkRatio = round(reply.p99 / sdkFloor.p99, 3);
    console.log("");
    console.log("                         p50 ms    p99 ms");
    console.log(`Parley  reply → viewer  ${String(reply.p50).padStart(7)}  ${String(reply.p99).padStart(8)}`);
    console.log(`        run → node      ${String(run.p50).padStart(7)}  ${String(run.p99).padStart(8)}`);
    console.log(
      `Baseline reply → viewer ${String(floor.p50).padStart(7)}  ${String(floor.p99).padStart(8)}   (one durable INSERT, in-process push)`,
    );
    console.log(`        trigger → node  ${String(floorRun.p50).padStart(7)}  ${String(floorRun.p99).padStart(8)}`);
    console.log(
      `SDK baseline → viewer   ${String(sdkFloor.p50).padStart(7)}  ${String(sdkFloor.p99).padStart(8)}   (the same, the answer read and the tool run by the AI SDK)`,
    );
    console.log(`p99 ratio ${ratio} (target ≤ 1.5: ${ratio <= 1.5 ? "met" : "not met"}); over the SDK baseline ${sdkRatio}`);
    console.log(
      JSON.stringify({
        reply_to_viewer_p50_ms: reply.p50,
        reply_to_viewer_p99_ms: reply.p99,
        baseline_p50_ms: floor.p50,
        baseline_p99_ms: floor.p99,
        ratio_p99: ratio,
        run_to_node_p50_ms: run.p50,
        run_to_node_p99_ms: run.p99,
        baseline_trigger_to_node_p99_ms: floorRun.p99,
        sdk_baseline_p50_ms: sdkFloor.p50,
        sdk_baseline_p99_ms: sdkFloor.p99,
        ratio_p99_over_sdk_baseline: sdkRatio,
        samples: parley.length,
        otel_export: process.env.BENCH_OTEL === "1",
      }),
    );
  } finally {
    await cleanup();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
