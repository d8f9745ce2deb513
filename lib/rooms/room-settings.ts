import { z } from "zod";
import { DEFAULT_CONCERN_PHRASES } from "@/lib/dialogue/detect";
import { STAGE_KEYS, type StageKey } from "@/lib/protocol/brainstorm";

/** The brainstorm's stages that run agents (all but the gate, which waits for people and never times out). */
export const BRAINSTORM_WORK_STAGES = STAGE_KEYS.filter((stage): stage is Exclude<StageKey, "gate"> => stage !== "gate");
type StageMinutesShape = Record<Exclude<StageKey, "gate">, z.ZodNumber>;

/** A brainstorm stage's time limit when the room names none. */
export const DEFAULT_STAGE_MINUTES = 10;

/**
 * The smallest context token budget a room may set: enough to hold the canvas line and the
 * request a run serves, shortened if need be (see `buildPrompt`).
 */
export const MIN_CONTEXT_TOKEN_BUDGET = 100;

/**
 * Every limit of the agents' behaviour, as a per-room setting whose default is the value given
 * in docs/behaviour/ (`broadcast_timeout`, `max_chain_depth`, …).
 */
export const roomSettingsSchema = z.strictObject({
  /** Runs allowed at once in a room; more wait in the queue (default 3). */
  max_concurrent_runs: z.number().int().min(1).max(20).default(3),
  /** Model steps per run (default 10). */
  max_steps: z.number().int().min(1).max(50).default(10),
  /** How deep request_agent chains may go (default 3). */
  max_chain_depth: z.number().int().min(0).max(10).default(3),
  /** Requests a run may make, through request_agent or on the board (default 1). */
  max_requests_per_run: z.number().int().min(0).max(10).default(1),
  /** Shared context board entries expire after this (default 1 hour). */
  board_expiry_minutes: z
    .number()
    .int()
    .min(1)
    .max(7 * 24 * 60)
    .default(60),
  /** Board entries from other runs injected into a prompt (default 15). */
  board_entries_in_prompt: z.number().int().min(0).max(100).default(15),
  /** The room's newest findings injected into every prompt (default 15). */
  findings_in_prompt: z.number().int().min(0).max(100).default(15),
  /** High-severity findings one run may post (default 2): the rest must be downgraded or merged. */
  max_high_findings_per_run: z.number().int().min(0).max(20).default(2),
  /** An agent posting the same finding again within this many minutes gets the earlier one back (default 10). */
  finding_repeat_minutes: z
    .number()
    .int()
    .min(0)
    .max(24 * 60)
    .default(10),
  /** Messages one seat may send the agents per minute (default 10). */
  commands_per_minute: z.number().int().min(1).max(600).default(10),
  /** Help requests (request_help) one run may make (default 2). */
  max_help_per_run: z.number().int().min(0).max(10).default(2),
  /** Rounds of a dialogue between two agents (an answer and a reply each); 0 turns dialogues off (default 2). */
  dialogue_max_rounds: z.number().int().min(0).max(5).default(2),
  /** Dialogues a room may hold open at once; a question asked beyond them opens none (default 2). */
  max_open_dialogues: z.number().int().min(1).max(10).default(2),
  /** Phrases that make a review that does not approve open a dialogue with the Coder (default: the detector's seven). */
  concern_phrases: z
    .array(z.string().trim().min(2).max(60))
    .max(30)
    .default(() => [...DEFAULT_CONCERN_PHRASES]),
  /** Who may decide at a brainstorm's gate: any participant (default) or admins only. */
  brainstorm_gate: z.enum(["participants", "admins"]).default("participants"),
  /**
   * How long each brainstorm stage may run, in minutes (default 10 each): a stage still running
   * then is stopped and goes on with what it has, marked short if that falls short.
   */
  brainstorm_stage_minutes: z
    .strictObject(Object.fromEntries(BRAINSTORM_WORK_STAGES.map((stage) => [stage, z.number().int().min(1).max(240)])) as StageMinutesShape)
    .partial()
    .default({}),
  /** Review rounds of a build review: code, then verdict (default 3). */
  max_review_rounds: z.number().int().min(1).max(10).default(3),
  /** Token budget for the injected collaboration context (default 2,000). */
  context_token_budget: z
    .number()
    .int()
    .min(
      MIN_CONTEXT_TOKEN_BUDGET,
      `must be at least ${MIN_CONTEXT_TOKEN_BUDGET} tokens: less cannot hold the canvas line and the request a run serves`,
    )
    .max(50_000)
    .default(2000),
  /** The scheduler starts an agent in this room every interval (default 45 s), when enabled. */
  scheduler_enabled: z.boolean().default(false),
  scheduler_interval_seconds: z.number().int().min(5).max(3600).default(45),
  /**
   * The scheduler starts agents only while someone has the room open, so a room left alone
   * does not keep filling its canvas (and spending on its models) for nobody.
   */
  scheduler_needs_viewers: z.boolean().default(true),
  /** Random seed for scripted models, so a room's demo is reproducible. */
  script_seed: z
    .number()
    .int()
    .min(0)
    .max(2 ** 31 - 1)
    .default(1),
  /** ask_others: who answers, how long the asker waits, how often and how thoroughly (docs/behaviour/asking-others.md). */
  broadcast: z.enum(["off", "agents", "human"]).default("off"),
  broadcast_timeout: z.number().int().min(1).max(3600).default(300),
  max_broadcasts_per_agent: z.number().int().min(1).max(100).default(10),
  broadcast_sensitivity: z.enum(["low", "medium", "high"]).default("medium"),
  response_depth: z.enum(["low", "medium", "high"]).default("medium"),
  /**
   * What the room's agents may spend a day (UTC): tokens, and US dollars. Null: the instance's
   * default for every room (`PARLEY_ROOM_DAILY_TOKENS`, `PARLEY_ROOM_DAILY_COST_USD`); 0: no limit.
   */
  daily_token_budget: z.number().int().min(0).max(1_000_000_000).nullable().default(null),
  daily_cost_budget_usd: z.number().min(0).max(100_000).nullable().default(null),
  /** What one workflow may spend on model calls; null: the instance's default (`PARLEY_WORKFLOW_COST_USD`), 0: no cap. */
  workflow_cost_cap_usd: z.number().min(0).max(100_000).nullable().default(null),
  /** A run that calls one tool with the same arguments this many times is stopped (default 3). */
  repeated_tool_call_limit: z.number().int().min(2).max(20).default(3),
  /**
   * Two agents asking each other much the same thing (requests, help, questions, dialogues) this many times
   * in one workflow: the last ask is refused and the asker's run stopped (default 3).
   */
  repeated_exchange_limit: z.number().int().min(2).max(20).default(3),
  /** What the room is about; shown to agents as the task. */
  task: z.string().max(4000).default(""),
  /**
   * Each of the room's agents publishes an A2A agent card, so another system holding one of the
   * room's outside-agent tokens can send it a message and get its answer as an A2A task.
   */
  a2a_agents: z.boolean().default(false),
});

export type RoomSettings = z.infer<typeof roomSettingsSchema>;

export type RoomSettingsPatch = Partial<RoomSettings>;

/**
 * A partial change to settings, as an admin submits it: only the keys it names. Built from
 * the fields without their defaults, since `.partial()` would still fill every missing key
 * with its default and a change to one setting would reset all the others.
 */
export const roomSettingsPatchSchema = z.strictObject(
  Object.fromEntries(Object.entries(roomSettingsSchema.shape).map(([key, field]) => [key, field.unwrap().optional()])),
) as unknown as z.ZodType<RoomSettingsPatch>;

export const DEFAULT_ROOM_SETTINGS: RoomSettings = roomSettingsSchema.parse({});

/** Reads stored settings leniently: unknown keys are dropped, bad values fall back to defaults. */
export function parseRoomSettings(stored: unknown): RoomSettings {
  const source = (stored && typeof stored === "object" ? stored : {}) as Record<string, unknown>;
  const result: Record<string, unknown> = {};
  for (const key of Object.keys(roomSettingsSchema.shape) as (keyof RoomSettings)[]) {
    const field = roomSettingsSchema.shape[key];
    const parsed = field.safeParse(source[key]);
    result[key] = parsed.success ? parsed.data : DEFAULT_ROOM_SETTINGS[key];
  }
  return result as RoomSettings;
}
