// The admin dashboard's endpoints on a big instance: 1,000 rooms, 50,000 runs and 500,000 events
// seeded on a fresh PostgreSQL database, then each endpoint's route handler timed from request to
// the last byte of its answer. Ends with one line of JSON (`max_p99_ms` and each endpoint's figures).
// Usage: npm run bench:admin [-- --samples=200 --warmup=20 --rooms=1000 --runs=50000 --events=500000 --keep]
import { sql } from "drizzle-orm";
import { type Database, migrateDatabase, openPostgres } from "@/db/client";
import { rowsOf } from "@/db/rows";
import { GET as findAgents } from "@/app/api/admin/agents/route";
import { GET as audit } from "@/app/api/admin/audit/route";
import { GET as instanceBudgets } from "@/app/api/admin/instance/budgets/route";
import { GET as instance } from "@/app/api/admin/instance/route";
import { GET as overview } from "@/app/api/admin/overview/route";
import { GET as exportEvents } from "@/app/api/admin/rooms/[roomId]/events/export/route";
import { GET as browseEvents } from "@/app/api/admin/rooms/[roomId]/events/route";
import { GET as readRoom } from "@/app/api/admin/rooms/[roomId]/route";
import { POST as prune } from "@/app/api/admin/rooms/prune/route";
import { GET as listRooms } from "@/app/api/admin/rooms/route";
import { GET as readRun } from "@/app/api/admin/runs/[runId]/route";
import { GET as listRuns } from "@/app/api/admin/runs/route";
import { GET as readWorkflow } from "@/app/api/admin/workflows/[correlationId]/route";
import { GET as listWorkflows } from "@/app/api/admin/workflows/route";
import { SeatCache } from "@/lib/auth/seat-cache";
import { RoomBus } from "@/lib/realtime/bus";
import { PresenceTracker } from "@/lib/realtime/presence";
import { setRuntime } from "@/lib/runtime";
import { freshPostgres } from "./support/local-postgres";
import { args, percentile, round } from "./support/stats";

const options = args();

/** A whole-number option from `min` to `max`, or the default; anything else stops the benchmark with the reason. */
function countOption(name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const value = Number(options[name] ?? fallback);
  if (!Number.isInteger(value) || value < min || value > max) {
    const range =
      max === Number.MAX_SAFE_INTEGER
        ? `of at least ${min.toLocaleString("en-US")}`
        : `from ${min.toLocaleString("en-US")} to ${max.toLocaleString("en-US")}`;
    console.error(`--${name} must be a whole number ${range}; got ${options[name]}.`);
    process.exit(1);
  }
  return value;
}

const SAMPLES = countOption("samples", 200, 1);
const WARMUP = countOption("warmup", 20, 0);
// Enough rooms for a few pages of the rooms list; room ids have four digits.
const ROOMS = countOption("rooms", 1000, 50, 9999);
// Sixty runs are under way (queued or running); the rest fill a few pages of the runs list.
const RUNS = countOption("runs", 50_000, 200);
// A run brings up to six events of its own; canvas and board traffic make up the rest.
const EVENTS = countOption("events", 500_000, 7 * RUNS);
/** Rooms that hold a fifth of the runs and a third of the events: a dashboard must stay fast on its busiest rooms too. */
const BUSY_ROOMS = 10;
const TARGET_P99_MS = 100;
const TOKEN = "bench-admin-token-0123456789";

process.env.ADMIN_TOKEN = TOKEN;

const server = await freshPostgres();
if (!server) {
  console.error(
    "bench:admin needs a local PostgreSQL server (BENCH_DATABASE_URL, DATABASE_URL or postgres://postgres@127.0.0.1:5432/postgres).",
  );
  process.exit(1);
}
const database = await openPostgres({ url: server.url, max: 10 });

const roomId = (index: number) => `room-${String(index).padStart(4, "0")}`;

/**
 * Seeds the instance in a few statements. Runs come in workflows of three in one room; the first
 * `BUSY_ROOMS` rooms get a fifth of them. Every run that started has its events (queued, started,
 * three steps, finished) and its three model calls; the rest of the events are canvas and board
 * traffic, half of it in the busy rooms. Everything is spread over the last 30 days.
 */
async function seed(db: Database["db"]) {
  const started = performance.now();
  await db.execute(sql`
    insert into rooms (id, title, template, settings, created_at, last_activity_at)
    select 'room-' || lpad(n::text, 4, '0'), 'Room ' || n || case when n % 7 = 0 then ' (songs)' else '' end, 'creative-canvas',
      case when n % 20 = 0 then '{"scheduler_enabled": true}'::jsonb else '{}'::jsonb end,
      now() - interval '60 days',
      case when n <= ${BUSY_ROOMS} then now() - n * interval '1 minute' else now() - (n % 60) * interval '1 day' - n * interval '1 second' end
    from generate_series(1, ${ROOMS}) as n`);
  await db.execute(sql`
    insert into agents (id, room_id, persona, name, role, description, color, model, identity, position)
    select r.id || '-' || p.persona, r.id, p.persona, p.name, 'role', 'A persona of the creative canvas', '#4c6ef5',
      case (hashtext(r.id) + p.position) % 3 when 0 then 'script:' || p.persona when 1 then 'openai:gpt-5' else 'anthropic:claude-sonnet-4-5' end,
      'creative-canvas/' || p.persona, p.position
    from rooms r cross join (values ('songwriter', 'Songwriter', 0), ('storyteller', 'Storyteller', 1), ('scene-painter', 'Scene Painter', 2),
      ('idea-weaver', 'Idea Weaver', 3), ('curator', 'Creative Curator', 4)) as p(persona, name, position)`);
  await db.execute(sql`
    insert into runs (id, room_id, agent_id, status, trigger, requested_by, prompt, correlation_id, steps, attempts,
      input_tokens, output_tokens, cost_usd, lease_owner, lease_expires_at, error, created_at, started_at, finished_at)
    select 'run-' || n, room, room || '-' || persona, status, 'scheduler', 'scheduler',
      'Add something to the canvas that fits what is already there. Check the shared context and respond to any pending requests or themes.',
      'wf-' || workflow, case when status = 'queued' then 0 else 3 end, case when status = 'queued' then 0 else 1 end,
      case when status = 'queued' then 0 else 3600 end, case when status = 'queued' then 0 else 600 end, case when status = 'queued' then 0 else 0.0105 end,
      case when status = 'running' then 'bench-b:worker:' || n end, case when status = 'running' then now() + interval '30 seconds' end,
      case when status = 'failed' then '{"error_type": "provider", "error_message": "The provider answered 500.", "retry_possible": true}'::jsonb end,
      at, case when status <> 'queued' then at end, case when status in ('succeeded', 'failed', 'cancelled') then at + interval '20 seconds' end
    from (
      select n, (n - 1) / 3 as workflow,
        'room-' || lpad((case when (n - 1) / 3 < ${Math.ceil(RUNS / 15)} then ((n - 1) / 3) % ${BUSY_ROOMS} else ${BUSY_ROOMS} + ((n - 1) / 3) % ${ROOMS - BUSY_ROOMS} end + 1)::text, 4, '0') as room,
        (array['songwriter', 'storyteller', 'scene-painter', 'idea-weaver', 'curator'])[1 + n % 5] as persona,
        case when n > ${RUNS - 30} then 'queued' when n > ${RUNS - 60} then 'running' when n % 50 = 0 then 'failed' when n % 97 = 0 then 'cancelled' else 'succeeded' end as status,
        now() - interval '30 days' + n * (interval '30 days' / ${RUNS}) as at
      from generate_series(1, ${RUNS}) as n
    ) as planned`);
  await db.execute(sql`
    insert into run_model_calls (run_id, attempt, call, step, input_tokens, output_tokens, cost_usd, created_at)
    select r.id, 1, k, k, 1200, 200, 0.0035, r.started_at + k * interval '5 seconds'
    from runs r cross join generate_series(0, 2) as k where r.status <> 'queued'`);
  // Run events: queued, started, three steps, finished (as far as each run got); then canvas and
  // board traffic up to the total. Sequence numbers follow time in each room.
  const runEvents = rowsOf<{ count: number }>(
    await db.execute(
      sql`select (count(*) + 4 * count(*) filter (where status <> 'queued') + count(*) filter (where status not in ('queued', 'running')))::int as count from runs`,
    ),
  )[0]!.count;
  const others = EVENTS - Number(runEvents);
  await db.execute(sql`
    insert into events (id, room_id, seq, correlation_id, agent, agent_name, target_agent, type, status, payload, created_at)
    select 'ev-' || row_number() over (), room_id, row_number() over (partition by room_id order by created_at, ordinal), correlation_id, agent, agent_name, null, type, status, payload, created_at
    from (
      select r.room_id, r.correlation_id, 'scheduler' as agent, 'Scheduler' as agent_name, 'run.queued' as type, 'pending' as status,
        jsonb_build_object('run', jsonb_build_object('id', r.id, 'agentId', r.agent_id, 'status', 'queued', 'prompt', r.prompt)) as payload,
        r.created_at, 0 as ordinal
      from runs r
      union all
      select r.room_id, r.correlation_id, r.agent_id, 'Agent', 'run.started', 'success',
        jsonb_build_object('runId', r.id, 'agentId', r.agent_id, 'attempt', 1, 'startedAt', r.started_at), r.started_at + interval '1 millisecond', 1
      from runs r where r.status <> 'queued'
      union all
      select r.room_id, r.correlation_id, r.agent_id, 'Agent', 'run.step', 'success',
        jsonb_build_object('runId', r.id, 'agentId', r.agent_id, 'step', k, 'text', 'A verse about rain on the glass, and the quiet after it.',
          'toolCalls', jsonb_build_array(jsonb_build_object('id', 'call-' || k, 'name', 'create_node', 'input', jsonb_build_object('text', 'Rain taps the glass', 'kind', 'lyric'))),
          'toolResults', jsonb_build_array(jsonb_build_object('id', 'call-' || k, 'name', 'create_node', 'output', jsonb_build_object('nodeId', 'node-' || k))),
          'durationMs', 4200, 'inputTokens', 1200, 'outputTokens', 200, 'costUsd', 0.0035),
        r.started_at + k * interval '5 seconds' + interval '2 milliseconds', 2 + k
      from runs r cross join generate_series(0, 2) as k where r.status <> 'queued'
      union all
      select r.room_id, r.correlation_id, r.agent_id, 'Agent', 'run.finished', case when r.status = 'failed' then 'error' else 'success' end,
        jsonb_build_object('runId', r.id, 'agentId', r.agent_id, 'status', r.status, 'steps', 3, 'attempts', 1, 'error', r.error,
          'durationMs', 20000, 'inputTokens', 3600, 'outputTokens', 600, 'costUsd', 0.0105),
        r.finished_at, 9
      from runs r where r.status in ('succeeded', 'failed', 'cancelled')
      union all
      select room, 'misc-' || room || '-' || (i % 50), room || '-' || persona, 'Agent',
        (array['node.created', 'node.updated', 'board.posted', 'edge.created', 'node.updated'])[1 + i % 5], 'success',
        jsonb_build_object('node', jsonb_build_object('id', 'node-' || i, 'text', 'A line on the canvas', 'kind', 'note')),
        now() - interval '30 days' + i * (interval '30 days' / ${others}), 10
      from (
        select i, 'room-' || lpad((case when i <= ${Math.floor(others / 2)} then i % ${BUSY_ROOMS} else ${BUSY_ROOMS} + i % ${ROOMS - BUSY_ROOMS} end + 1)::text, 4, '0') as room,
          (array['songwriter', 'storyteller', 'scene-painter', 'idea-weaver', 'curator'])[1 + i % 5] as persona
        from generate_series(1, ${others}) as i
      ) as traffic
    ) as everything`);
  await db.execute(
    sql`update rooms set last_seq = counted.last from (select room_id, max(seq) as last from events group by room_id) as counted where counted.room_id = rooms.id`,
  );
  // What the model calls spent, by agent-hour, as the migration fills it from calls already stored.
  await db.execute(sql`
    insert into usage_hourly (hour, agent_id, model, room_id, identity, agent_name, calls, input_tokens, output_tokens, cost_usd)
    select date_bin('1 hour', c.created_at, timestamptz '2000-01-01T00:00:00Z'), a.id, a.model, a.room_id, a.identity, a.name, count(*), sum(c.input_tokens), sum(c.output_tokens), sum(c.cost_usd)
    from run_model_calls c join runs r on r.id = c.run_id join agents a on a.id = r.agent_id
    group by 1, 2, 3, 4, 5, 6`);
  await db.execute(sql`
    insert into admin_actions (id, at, actor, action, room_id, room_title, summary, details)
    select 'action-' || n, now() - n * interval '10 minutes', 'admin', 'room.updated', 'room-' || lpad((1 + n % ${ROOMS})::text, 4, '0'), 'Room', 'changed max_steps', '{"settings": {"max_steps": 9}}'::jsonb
    from generate_series(1, 2000) as n`);
  await db.execute(sql`
    insert into presence (connection_id, room_id, instance_id, seat_id, last_seen_at)
    select 'connection-' || n, 'room-' || lpad((1 + n % ${Math.min(100, ROOMS)})::text, 4, '0'), case when n % 2 = 0 then 'bench-a' else 'bench-b' end, null, now() + interval '1 hour'
    from generate_series(1, 200) as n`);
  await db.execute(sql`insert into leases (name, owner, expires_at) values ('scheduler', 'bench-b', now() + interval '1 hour')`);
  await db.execute(sql`analyze`);
  const [counts] = rowsOf<{ rooms: number; runs: number; events: number; calls: number; usage: number }>(
    await db.execute(sql`select (select count(*) from rooms)::int as rooms, (select count(*) from runs)::int as runs, (select count(*) from events)::int as events,
      (select count(*) from run_model_calls)::int as calls, (select count(*) from usage_hourly)::int as usage`),
  );
  return { ...counts!, seconds: round((performance.now() - started) / 1000, 1) };
}

type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;

interface Endpoint {
  name: string;
  handler: Handler;
  /**
   * A download streamed as it is read (the exports): timed to its first byte, which is what the
   * admin waits for; how long the whole file takes depends on its size and is printed apart.
   */
  download?: boolean;
  /** The request for sample `index`: a path with its query, the route's parameters, a JSON body for a POST. */
  request: (index: number) => { url: string; params?: Record<string, string>; body?: unknown };
}

async function callOnce(endpoint: Endpoint, index: number): Promise<number> {
  const { url, params = {}, body } = endpoint.request(index);
  const request = new Request(`http://localhost${url}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const started = performance.now();
  const response = await endpoint.handler(request, { params: Promise.resolve(params) });
  if (endpoint.download && response.status === 200 && response.body) {
    const reader = response.body.getReader();
    const first = await reader.read();
    const elapsed = performance.now() - started;
    if (first.done || first.value.length === 0) throw new Error(`${endpoint.name}: ${url} sent nothing`);
    await reader.cancel();
    return elapsed;
  }
  const text = await response.text();
  const elapsed = performance.now() - started;
  if (response.status !== 200) throw new Error(`${endpoint.name}: ${url} answered ${response.status}: ${text.slice(0, 300)}`);
  return elapsed;
}

/** A whole download, read to its last byte: how long, how many lines (events) and bytes. */
async function wholeDownload(endpoint: Endpoint, index: number) {
  const { url, params = {} } = endpoint.request(index);
  const started = performance.now();
  const response = await endpoint.handler(new Request(`http://localhost${url}`, { headers: { authorization: `Bearer ${TOKEN}` } }), {
    params: Promise.resolve(params),
  });
  const text = await response.text();
  return { ms: performance.now() - started, events: text.split("\n").filter(Boolean).length, bytes: Buffer.byteLength(text) };
}

async function measure(endpoint: Endpoint) {
  for (let index = 0; index < WARMUP; index++) await callOnce(endpoint, index);
  const times: number[] = [];
  for (let index = 0; index < SAMPLES; index++) times.push(await callOnce(endpoint, WARMUP + index));
  times.sort((a, b) => a - b);
  return { p50_ms: round(percentile(times, 50), 2), p99_ms: round(percentile(times, 99), 2) };
}

console.log(
  `Seeding ${ROOMS.toLocaleString("en-US")} rooms, ${RUNS.toLocaleString("en-US")} runs and ${EVENTS.toLocaleString("en-US")} events on PostgreSQL (${server.name})…`,
);
let seeded: Awaited<ReturnType<typeof seed>>;
try {
  await migrateDatabase(database);
  seeded = await seed(database.db);
} catch (error) {
  await database.close();
  await server.drop();
  throw error;
}
console.log(`Seeded in ${seeded.seconds} s: ${JSON.stringify(seeded)}\n`);

const bus = new RoomBus(database);
await bus.start();
const presence = new PresenceTracker(database, bus, { instanceId: "bench-a" });
setRuntime({ instanceId: "bench-a", database, bus, presence, seats: new SeatCache(), worker: null, scheduler: null });

// What the samples ask for: busy and ordinary rooms, runs, workflows, and cursors deep into the lists.
const db = database.db;
const pick = <T>(list: T[], index: number) => list[(index * 7919) % list.length]!;
const sampleRooms = Array.from({ length: 50 }, (_, index) => roomId(index < 10 ? index + 1 : 11 + ((index * 37) % (ROOMS - BUSY_ROOMS))));
const sampleRuns = rowsOf<{ id: string; correlation_id: string; room_id: string; agent_id: string }>(
  await db.execute(sql`select id, correlation_id, room_id, agent_id from runs where status <> 'queued' order by md5(id) limit 200`),
);
const lastSeqs = new Map(
  rowsOf<{ id: string; last_seq: number }>(
    await db.execute(
      sql`select id, last_seq from rooms where id in (${sql.join(
        sampleRooms.map((id) => sql`${id}`),
        sql`, `,
      )})`,
    ),
  ).map((row) => [row.id, Number(row.last_seq)]),
);
/** The cursor twenty pages into a list (or to its last page, when smaller), found by reading those pages as the dashboard would. */
async function deepCursor(handler: Handler, path: string, key: string, pages = 20): Promise<string> {
  let cursor = "";
  for (let page = 0; page < pages; page++) {
    const response = await handler(
      new Request(`http://localhost${path}${cursor ? `&cursor=${cursor}` : ""}`, { headers: { authorization: `Bearer ${TOKEN}` } }),
      { params: Promise.resolve({}) },
    );
    const next = ((await response.json()) as Record<string, unknown>)[key];
    if (typeof next !== "string") break;
    cursor = next;
  }
  if (!cursor) throw new Error(`${path} has a single page: seed more rows to read deep into it.`);
  return cursor;
}
const runsCursor = await deepCursor(listRuns as Handler, "/api/admin/runs?limit=50", "nextCursor");
const roomsCursor = await deepCursor(listRooms as Handler, "/api/admin/rooms?limit=20", "nextCursor");
const auditCursor = await deepCursor(audit as Handler, "/api/admin/audit?limit=50", "nextCursor");
// What the runs filter's agent picker asks while an admin types a name, a letter at a time: every
// prefix of every persona's name, the short ones matching most of the instance's agents.
const typedNames = ["Songwriter", "Storyteller", "Scene Painter", "Idea Weaver", "Creative Curator"].flatMap((name) =>
  Array.from({ length: name.length }, (_, length) => encodeURIComponent(name.slice(0, length + 1).toLowerCase())),
);

const endpoints: Endpoint[] = [
  { name: "overview (week)", handler: overview as Handler, request: () => ({ url: "/api/admin/overview?range=week" }) },
  { name: "overview (30 days)", handler: overview as Handler, request: () => ({ url: "/api/admin/overview?range=month" }) },
  { name: "runs: newest", handler: listRuns as Handler, request: () => ({ url: "/api/admin/runs?limit=50" }) },
  { name: "runs: 20 pages in", handler: listRuns as Handler, request: () => ({ url: `/api/admin/runs?limit=50&cursor=${runsCursor}` }) },
  { name: "runs: failed", handler: listRuns as Handler, request: () => ({ url: "/api/admin/runs?status=failed&limit=50" }) },
  { name: "runs: running", handler: listRuns as Handler, request: () => ({ url: "/api/admin/runs?status=running&limit=50" }) },
  {
    name: "runs: by room",
    handler: listRuns as Handler,
    request: (index) => ({ url: `/api/admin/runs?room=${pick(sampleRooms, index)}&limit=50` }),
  },
  {
    name: "runs: by room and agent",
    handler: listRuns as Handler,
    request: (index) => {
      const run = pick(sampleRuns, index);
      return { url: `/api/admin/runs?room=${run.room_id}&agent=${run.agent_id}&limit=50` };
    },
  },
  // By name across the instance: 1,000 agents share each name here.
  {
    name: "runs: by agent name, all rooms",
    handler: listRuns as Handler,
    request: () => ({ url: "/api/admin/runs?agent=Scene%20Painter&limit=50" }),
  },
  {
    name: "runs: by agent, all rooms",
    handler: listRuns as Handler,
    request: (index) => ({ url: `/api/admin/runs?agent=${pick(sampleRuns, index).agent_id}&limit=50` }),
  },
  {
    name: "runs: by room, failed",
    handler: listRuns as Handler,
    request: (index) => ({ url: `/api/admin/runs?room=${pick(sampleRooms, index)}&status=failed&limit=50` }),
  },
  {
    name: "agents: typing a name",
    handler: findAgents as Handler,
    request: (index) => ({ url: `/api/admin/agents?q=${pick(typedNames, index)}` }),
  },
  {
    name: "agents: typing, in a room",
    handler: findAgents as Handler,
    request: (index) => ({ url: `/api/admin/agents?q=${pick(typedNames, index)}&room=${pick(sampleRooms, index)}` }),
  },
  {
    name: "agents: by id",
    handler: findAgents as Handler,
    request: (index) => ({ url: `/api/admin/agents?q=${pick(sampleRuns, index).agent_id}` }),
  },
  { name: "run: steps", handler: readRun as Handler, request: (index) => ({ url: "/x", params: { runId: pick(sampleRuns, index).id } }) },
  {
    name: "workflow by correlation id",
    handler: readWorkflow as Handler,
    request: (index) => ({ url: "/x", params: { correlationId: pick(sampleRuns, index).correlation_id } }),
  },
  {
    name: "workflows of a room",
    handler: listWorkflows as Handler,
    request: (index) => ({ url: `/api/admin/workflows?room=${pick(sampleRooms, index)}` }),
  },
  { name: "rooms: newest", handler: listRooms as Handler, request: () => ({ url: "/api/admin/rooms?limit=20" }) },
  {
    name: "rooms: 20 pages in",
    handler: listRooms as Handler,
    request: () => ({ url: `/api/admin/rooms?limit=20&cursor=${roomsCursor}` }),
  },
  { name: "rooms: title search", handler: listRooms as Handler, request: () => ({ url: "/api/admin/rooms?q=songs&limit=20" }) },
  { name: "rooms: idle 30 days", handler: listRooms as Handler, request: () => ({ url: "/api/admin/rooms?idle_days=30&limit=20" }) },
  { name: "room", handler: readRoom as Handler, request: (index) => ({ url: "/x", params: { roomId: pick(sampleRooms, index) } }) },
  {
    name: "events: newest",
    handler: browseEvents as Handler,
    request: (index) => ({ url: "/x?limit=50", params: { roomId: pick(sampleRooms, index) } }),
  },
  {
    name: "events: halfway back",
    handler: browseEvents as Handler,
    request: (index) => {
      const room = pick(sampleRooms, index);
      return { url: `/x?limit=50&before=${Math.floor(lastSeqs.get(room)! / 2)}`, params: { roomId: room } };
    },
  },
  {
    name: "events: by type",
    handler: browseEvents as Handler,
    request: (index) => ({ url: "/x?type=run.finished&limit=50", params: { roomId: pick(sampleRooms, index) } }),
  },
  {
    name: "events: rare type",
    handler: browseEvents as Handler,
    request: (index) => ({ url: "/x?type=room.updated&limit=50", params: { roomId: pick(sampleRooms, index) } }),
  },
  {
    name: "events: by agent",
    handler: browseEvents as Handler,
    request: (index) => {
      const run = pick(sampleRuns, index);
      return { url: `/x?agent=${run.agent_id}&limit=50`, params: { roomId: run.room_id } };
    },
  },
  {
    name: "events: by correlation id",
    handler: browseEvents as Handler,
    request: (index) => {
      const run = pick(sampleRuns, index);
      return { url: `/x?correlation_id=${run.correlation_id}&limit=50`, params: { roomId: run.room_id } };
    },
  },
  {
    name: "events: export of a room",
    handler: exportEvents as Handler,
    download: true,
    request: (index) => ({ url: "/x", params: { roomId: pick(sampleRooms.slice(BUSY_ROOMS), index) } }),
  },
  {
    name: "events: export of a busy room",
    handler: exportEvents as Handler,
    download: true,
    request: (index) => ({ url: "/x", params: { roomId: pick(sampleRooms.slice(0, BUSY_ROOMS), index) } }),
  },
  {
    name: "events: export, busy, one type",
    handler: exportEvents as Handler,
    download: true,
    request: (index) => ({ url: "/x?type=run.finished", params: { roomId: pick(sampleRooms.slice(0, BUSY_ROOMS), index) } }),
  },
  {
    name: "events: export, one workflow",
    handler: exportEvents as Handler,
    download: true,
    request: (index) => {
      const run = pick(sampleRuns, index);
      return { url: `/x?correlation_id=${run.correlation_id}`, params: { roomId: run.room_id } };
    },
  },
  { name: "instance", handler: instance as Handler, request: () => ({ url: "/api/admin/instance" }) },
  { name: "instance: budgets", handler: instanceBudgets as Handler, request: () => ({ url: "/api/admin/instance/budgets" }) },
  { name: "audit: newest", handler: audit as Handler, request: () => ({ url: "/api/admin/audit?limit=50" }) },
  { name: "audit: 20 pages in", handler: audit as Handler, request: () => ({ url: `/api/admin/audit?limit=50&cursor=${auditCursor}` }) },
  {
    name: "prune: preview",
    handler: prune as Handler,
    request: () => ({ url: "/api/admin/rooms/prune", body: { idleDays: 30, dryRun: true } }),
  },
];

const figures: Record<string, { p50_ms: number; p99_ms: number }> = {};
console.log(`Each endpoint: ${WARMUP} requests to warm up, then ${SAMPLES} timed (route handler, request to last byte).\n`);
console.log(`${"endpoint".padEnd(32)} ${"p50 ms".padStart(8)} ${"p99 ms".padStart(8)}`);
for (const endpoint of endpoints) {
  figures[endpoint.name] = await measure(endpoint);
  const { p50_ms, p99_ms } = figures[endpoint.name]!;
  console.log(
    `${endpoint.name.padEnd(32)} ${String(p50_ms).padStart(8)} ${String(p99_ms).padStart(8)}${p99_ms > TARGET_P99_MS ? "   over target" : ""}`,
  );
}
// The exports' figures are to their first byte; a busy room's whole file, read to its end, for its size.
const busyExport = endpoints.find((endpoint) => endpoint.name === "events: export of a busy room")!;
const whole = await Promise.all([0, 1, 2].map(async (index) => wholeDownload(busyExport, index)));
const wholeMs = whole.reduce((total, each) => total + each.ms, 0) / whole.length;
const wholeEvents = whole.reduce((total, each) => total + each.events, 0) / whole.length;
const wholeBytes = whole.reduce((total, each) => total + each.bytes, 0) / whole.length;
console.log(
  `\nA busy room's whole export, read to its end: ${Math.round(wholeEvents).toLocaleString("en-US")} events, ` +
    `${(wholeBytes / 1e6).toFixed(1)} MB in ${Math.round(wholeMs)} ms (${Math.round(wholeEvents / (wholeMs / 1000)).toLocaleString("en-US")} events/s).`,
);
const maxP99 = Math.max(...Object.values(figures).map((figure) => figure.p99_ms));
const slowest = Object.entries(figures).find(([, figure]) => figure.p99_ms === maxP99)![0];
console.log(
  `\nSlowest p99: ${maxP99} ms (${slowest}); target ≤ ${TARGET_P99_MS} ms at p99 for every endpoint: ${maxP99 <= TARGET_P99_MS ? "met" : "not met"}.\n`,
);

presence.stop();
await bus.stop();
await database.close();
if (options.keep) console.log(`Kept the database: ${server.url}`);
else await server.drop();
console.log(
  JSON.stringify({
    max_p99_ms: maxP99,
    target_p99_ms: TARGET_P99_MS,
    samples: SAMPLES,
    seeded,
    endpoints: figures,
    busy_export_whole: { ms: Math.round(wholeMs), events: Math.round(wholeEvents), bytes: Math.round(wholeBytes) },
  }),
);
process.exit(0);
