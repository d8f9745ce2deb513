import { eq, inArray } from "drizzle-orm";
import { z } from "zod";
import type { Db, DbOrTx } from "@/db";
import { instanceSettings } from "@/db/schema";
import { adminActionInsert } from "@/lib/admin/admin-actions";
import { type Env, getEnv } from "@/lib/env";
import { badRequest } from "@/lib/errors";
import { roomSettingsSchema } from "@/lib/rooms/room-settings";

/** The instance's daily budgets as the dashboard sets them: null takes the environment's value. */
export interface InstanceBudgetSettings {
  daily_token_budget: number | null;
  daily_cost_budget_usd: number | null;
}

const BUDGET_KEYS = ["daily_token_budget", "daily_cost_budget_usd"] as const;

/**
 * A change to the instance's daily budgets: the keys it names, each a limit (0: none) or null
 * (back to the environment's value). Bounded as a room's own budgets are.
 */
export const instanceBudgetsPatchSchema = z
  .strictObject({
    daily_token_budget: roomSettingsSchema.shape.daily_token_budget.unwrap().optional(),
    daily_cost_budget_usd: roomSettingsSchema.shape.daily_cost_budget_usd.unwrap().optional(),
  })
  .refine((patch) => BUDGET_KEYS.some((key) => key in patch), { message: "send daily_token_budget, daily_cost_budget_usd or both" });
export type InstanceBudgetsPatch = z.infer<typeof instanceBudgetsPatchSchema>;

export interface InstanceBudgets {
  /** What the dashboard set; null where the environment's value applies. */
  settings: InstanceBudgetSettings;
  /** The environment's values (`PARLEY_INSTANCE_DAILY_TOKENS`, `PARLEY_INSTANCE_DAILY_COST_USD`). */
  defaults: { tokens: number; costUsd: number };
  /** What applies now; 0 means no limit. */
  limits: { tokens: number; costUsd: number };
}

/** The instance's daily budgets: the dashboard's settings over the environment's values. */
export async function readInstanceBudgets(db: DbOrTx, env: Env = getEnv()): Promise<InstanceBudgets> {
  const rows = await db
    .select()
    .from(instanceSettings)
    .where(inArray(instanceSettings.name, [...BUDGET_KEYS]));
  return instanceBudgetsFrom(Object.fromEntries(rows.map((row) => [row.name, row.value])), env);
}

/** The instance's daily budgets from the stored settings by name (`instance_settings` rows). */
function instanceBudgetsFrom(stored: Record<string, unknown>, env: Env): InstanceBudgets {
  const limit = (key: (typeof BUDGET_KEYS)[number]) => {
    const value = stored[key];
    return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : null;
  };
  const settings = { daily_token_budget: limit("daily_token_budget"), daily_cost_budget_usd: limit("daily_cost_budget_usd") };
  const defaults = { tokens: env.PARLEY_INSTANCE_DAILY_TOKENS, costUsd: env.PARLEY_INSTANCE_DAILY_COST_USD };
  return {
    settings,
    defaults,
    limits: { tokens: settings.daily_token_budget ?? defaults.tokens, costUsd: settings.daily_cost_budget_usd ?? defaults.costUsd },
  };
}

/** The daily limits that apply now (0: none), from the stored settings by name. */
export function instanceLimitsFrom(stored: Record<string, unknown>, env: Env = getEnv()): InstanceBudgets["limits"] {
  return instanceBudgetsFrom(stored, env).limits;
}

function describeLimit(key: (typeof BUDGET_KEYS)[number], value: number | null, defaults: InstanceBudgets["defaults"]): string {
  const isCost = key === "daily_cost_budget_usd";
  const amount = (limit: number) => (limit === 0 ? "none" : isCost ? `$${limit.toFixed(2)}` : `${limit.toLocaleString("en-US")} tokens`);
  return value === null ? `the default (${amount(isCost ? defaults.costUsd : defaults.tokens)})` : amount(value);
}

/**
 * Sets the instance's daily budgets from the dashboard, recorded in the audit trail with what
 * they were and what they are now, in one transaction. Sending what is already set changes and
 * records nothing. A body that names no budget is a 400.
 */
export async function updateInstanceBudgets(db: Db, patch: InstanceBudgetsPatch, at: Date = new Date()): Promise<InstanceBudgets> {
  const keys = BUDGET_KEYS.filter((key) => patch[key] !== undefined);
  if (keys.length === 0) throw badRequest("send daily_token_budget, daily_cost_budget_usd or both");
  return db.transaction(async (tx) => {
    const before = await readInstanceBudgets(tx);
    const changed = keys.filter((key) => patch[key] !== before.settings[key]);
    if (changed.length === 0) return before;
    for (const key of changed) {
      const value = patch[key]!;
      if (value === null) await tx.delete(instanceSettings).where(eq(instanceSettings.name, key));
      else
        await tx
          .insert(instanceSettings)
          .values({ name: key, value, updatedAt: at })
          .onConflictDoUpdate({ target: instanceSettings.name, set: { value, updatedAt: at } });
    }
    const after = await readInstanceBudgets(tx);
    const label = { daily_token_budget: "tokens a day", daily_cost_budget_usd: "cost a day" } as const;
    const summary = `Set the server's daily budgets: ${changed
      .map(
        (key) =>
          `${label[key]} ${describeLimit(key, after.settings[key], after.defaults)} (was ${describeLimit(key, before.settings[key], before.defaults)})`,
      )
      .join(", ")}`;
    await adminActionInsert(
      tx,
      { action: "instance.budgets_updated", summary, details: { before: before.settings, after: after.settings } },
      at,
    );
    return after;
  });
}
