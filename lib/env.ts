import path from "node:path";
import { z } from "zod";
import { normalizeEndpoint } from "./models/endpoint-address";

const booleanFlag = z
  .enum(["1", "0", "true", "false", "on", "off", "yes", "no", ""])
  .transform((value) => ["1", "true", "on", "yes"].includes(value));

/** A comma-separated setting, as a list of its trimmed, non-empty entries, each checked by `item`. */
const commaList = (item: z.ZodType<string, string>) =>
  z
    .string()
    .optional()
    .transform((value) =>
      (value ?? "")
        .split(",")
        .map((entry) => entry.trim())
        .filter(Boolean),
    )
    .pipe(z.array(item));

/** Variables that are never an agent's key, whoever lists them: the admin's credential and the database's. */
const NEVER_KEY_VARIABLES = ["ADMIN_TOKEN", "DATABASE_URL"];

const keyVariable = z
  .string()
  .regex(/^[A-Z_][A-Z0-9_]*$/, "must list environment variable names, such as GROQ_API_KEY")
  .superRefine((name, context) => {
    if (NEVER_KEY_VARIABLES.includes(name)) context.addIssue({ code: "custom", message: `${name} can never be an agent's key` });
  });

const endpointPrefix = z.string().transform((value, context) => {
  const endpoint = normalizeEndpoint(value);
  if ("url" in endpoint) return endpoint.url;
  context.addIssue({ code: "custom", message: `${value}: ${endpoint.error}` });
  return z.NEVER;
});

const envSchema = z.object({
  DATABASE_URL: z.string().url().optional(),
  PARLEY_DATA_DIR: z.string().default(".data"),
  ADMIN_TOKEN: z.string().min(16, "ADMIN_TOKEN must be at least 16 characters").optional(),
  PARLEY_INSTANCE_ID: z.string().optional(),
  PARLEY_WORKER: booleanFlag.default(true),
  PARLEY_DEMO_ROOM: booleanFlag.default(true),
  /** Pause between words the offline model streams, so spectators can watch it type. */
  PARLEY_SCRIPT_PACE_MS: z.coerce.number().int().min(0).max(1000).default(45),
  /** Pause before each step of the offline model, as if it were thinking. */
  PARLEY_SCRIPT_THINK_MS: z.coerce.number().int().min(0).max(10_000).default(350),
  /** How long a model call may wait for its provider before it times out and is retried (default 120 s). */
  PARLEY_MODEL_TIMEOUT_SECONDS: z.coerce.number().int().min(5).max(3600).default(120),
  /**
   * Spending limits per day (UTC), across the whole instance and, as each room's default, per room;
   * 0 means no limit. A room's own `daily_token_budget` / `daily_cost_budget_usd` settings override
   * the room defaults, and the instance's budgets set on the dashboard override the instance's.
   * See docs/behaviour/limits.md.
   */
  PARLEY_INSTANCE_DAILY_TOKENS: z.coerce.number().int().min(0).default(0),
  PARLEY_INSTANCE_DAILY_COST_USD: z.coerce.number().min(0).default(20),
  PARLEY_ROOM_DAILY_TOKENS: z.coerce.number().int().min(0).default(0),
  PARLEY_ROOM_DAILY_COST_USD: z.coerce.number().min(0).default(5),
  /** What one workflow (one correlation id) may spend on model calls, unless its room says otherwise; 0: no cap. */
  PARLEY_WORKFLOW_COST_USD: z.coerce.number().min(0).default(0),
  /**
   * The output-token limit of a model call whose agent sets none (`max_tokens`): what a call is
   * reserved against the budgets before it is made, and the most its provider may answer with.
   */
  PARLEY_MAX_OUTPUT_TOKENS: z.coerce.number().int().min(1).max(1_000_000).default(4096),
  /**
   * Who may create rooms and import teams: anyone, admins only, or `auto` — anyone while only the
   * offline model is configured, admins only once a key agents could spend on is set (a provider's, or one
   * imported teams may name: see lib/limits/room-creation.ts).
   */
  PARLEY_ROOM_CREATION: z.enum(["auto", "anyone", "admins"]).default("auto"),
  /** Requests one client address may make (0: no limit): rooms created and teams imported an hour, seats taken an hour, runs started a minute. */
  PARLEY_ROOMS_PER_HOUR: z.coerce.number().int().min(0).max(100_000).default(20),
  PARLEY_IMPORTS_PER_HOUR: z.coerce.number().int().min(0).max(100_000).default(20),
  PARLEY_SEATS_PER_HOUR: z.coerce.number().int().min(0).max(100_000).default(60),
  PARLEY_RUN_STARTS_PER_MINUTE: z.coerce.number().int().min(0).max(100_000).default(20),
  /** Changes one seat may make to a room a minute (notes, edges, answers, messages…); 0: no limit. */
  PARLEY_SEAT_WRITES_PER_MINUTE: z.coerce.number().int().min(0).max(100_000).default(240),
  /** Failed admin sign-ins one client address may make a minute before it must wait. */
  PARLEY_ADMIN_SIGN_INS_PER_MINUTE: z.coerce.number().int().min(1).max(1000).default(5),
  /**
   * How many reverse proxies in front of Parley append to `X-Forwarded-For`: the client's address
   * is read that many entries from the right. 0: Parley faces the clients itself.
   */
  PARLEY_TRUSTED_PROXIES: z.coerce.number().int().min(0).max(10).default(0),
  /**
   * Host names the server answers to besides localhost and loopback addresses, comma-separated:
   * a name, an address, `.example.com` for a domain and the names under it, or `*` for any (when a
   * proxy in front checks the host). Read by the front door (scripts/front-door.mjs).
   */
  PARLEY_ALLOWED_HOSTS: z.string().optional(),
  /** The address people reach this instance at (`https://parley.example.com`); its host is allowed too. */
  PARLEY_PUBLIC_URL: z.string().url().optional(),
  /** How long an admin's sign-in lasts before the dashboard asks again, in hours. */
  PARLEY_ADMIN_SESSION_HOURS: z.coerce
    .number()
    .min(0.01)
    .max(24 * 30)
    .default(12),
  /** The largest room log file a replay may be made from (MB), and the most events it may hold. */
  PARLEY_REPLAY_MAX_MB: z.coerce.number().int().min(1).max(1024).default(64),
  PARLEY_REPLAY_MAX_EVENTS: z.coerce.number().int().min(1).max(10_000_000).default(100_000),
  /**
   * A run's lease: a worker that stops heartbeating (its instance died) loses its runs this long
   * after its last heartbeat, and another instance takes them over. Heartbeats come four times a lease.
   */
  PARLEY_RUN_LEASE_SECONDS: z.coerce.number().int().min(2).max(600).default(8),
  /**
   * Environment variables an imported team's agents may name as their key (`api_key_env`),
   * comma-separated. None by default: no other variable is ever read for an agent.
   */
  PARLEY_IMPORT_KEY_VARIABLES: commaList(keyVariable),
  /**
   * Endpoints an imported team's agents may name (`base_url`), as URL prefixes, comma-separated.
   * None by default: only an admin may import a team naming another endpoint, and never one on
   * a loopback, link-local or private address unless it is listed here.
   */
  PARLEY_IMPORT_ENDPOINTS: commaList(endpointPrefix),
  /**
   * Local commands an admin's imported team may start as MCP servers, comma-separated, each a
   * whole command line as the file writes it (`npx -y @modelcontextprotocol/server-everything`).
   * None by default: no team's file starts a process on the server unless it is listed here.
   */
  PARLEY_MCP_COMMANDS: commaList(z.string()),
  OPENAI_API_KEY: z.string().optional(),
  OPENAI_BASE_URL: z.string().url().optional(),
  ANTHROPIC_API_KEY: z.string().optional(),
  ANTHROPIC_BASE_URL: z.string().url().optional(),
  GOOGLE_GENERATIVE_AI_API_KEY: z.string().optional(),
  GOOGLE_BASE_URL: z.string().url().optional(),
  OPENAI_COMPATIBLE_BASE_URL: z.string().url().optional(),
  OPENAI_COMPATIBLE_API_KEY: z.string().optional(),
  OPENAI_COMPATIBLE_NAME: z.string().default("openai-compatible"),
});

export type Env = z.infer<typeof envSchema>;

/**
 * Reads and validates the environment. Read on every call (cheap) so tests and
 * scripts that set variables before use see their own values.
 */
const ENV_KEYS = Object.keys(envSchema.shape) as (keyof Env)[];
let lastParsed: { values: string; env: Env } | null = null;

/**
 * Parley's settings from the environment. Read on hot paths (every model call resolves its
 * provider through it), so it reads only the variables Parley knows and parses them again
 * only when one of them has changed.
 */
export function getEnv(source: NodeJS.ProcessEnv = process.env): Env {
  const cleaned: Record<string, string> = {};
  for (const key of ENV_KEYS) {
    const value = source[key];
    if (value !== undefined && value !== "") cleaned[key] = value;
  }
  const values = JSON.stringify(cleaned);
  if (lastParsed?.values === values) return lastParsed.env;
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    const reasons = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
    throw new Error(`Invalid environment: ${reasons.join("; ")}`);
  }
  lastParsed = { values, env: parsed.data };
  return parsed.data;
}

export function dataDir(env: Env = getEnv()): string {
  return path.resolve(/*turbopackIgnore: true*/ process.cwd(), env.PARLEY_DATA_DIR);
}
