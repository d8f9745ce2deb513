import path from "node:path";
import { z } from "zod";

const booleanFlag = z
  .enum(["1", "0", "true", "false", "on", "off", "yes", "no", ""])
  .transform((value) => ["1", "true", "on", "yes"].includes(value));

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
export function getEnv(source: NodeJS.ProcessEnv = process.env): Env {
  const cleaned = Object.fromEntries(
    Object.entries(source).filter(([, value]) => value !== undefined && value !== ""),
  );
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    const reasons = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
    throw new Error(`Invalid environment: ${reasons.join("; ")}`);
  }
  return parsed.data;
}

export function dataDir(env: Env = getEnv()): string {
  return path.resolve(/*turbopackIgnore: true*/ process.cwd(), env.PARLEY_DATA_DIR);
}
