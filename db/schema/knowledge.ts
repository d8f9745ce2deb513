import { boolean, doublePrecision, index, integer, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

/**
 * An agent's knowledge vault, kept per identity (see `agents.identity`) rather than per room:
 * every room with an agent of that identity reads and adds to the same vault. Rows outlive
 * their rooms; an admin clears a vault.
 */
export const vaultInsights = pgTable(
  "vault_insights",
  {
    id: text("id").primaryKey(),
    identity: text("identity").notNull(),
    text: text("text").notNull(),
    /** Where it was learned. */
    roomId: text("room_id").notNull(),
    /** Written as a general lesson: shown in the agent's other rooms too; otherwise only in the room it came from. */
    general: boolean("general").notNull().default(false),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index("vault_insights_identity_idx").on(table.identity, table.createdAt)],
);

/** How well an identity knows an area, 0–100. */
export const vaultExpertise = pgTable(
  "vault_expertise",
  {
    identity: text("identity").notNull(),
    area: text("area").notNull(),
    level: integer("level").notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.identity, table.area] })],
);

/** What an identity was asked to do and how it went: one row per finished run. */
export const vaultTasks = pgTable(
  "vault_tasks",
  {
    id: text("id").primaryKey(),
    identity: text("identity").notNull(),
    roomId: text("room_id").notNull(),
    runId: text("run_id").notNull(),
    asked: text("asked").notNull(),
    outcome: text("outcome").notNull(),
    steps: integer("steps").notNull(),
    costUsd: doublePrecision("cost_usd").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index("vault_tasks_identity_idx").on(table.identity, table.createdAt)],
);

export type VaultInsight = typeof vaultInsights.$inferSelect;
export type VaultExpertise = typeof vaultExpertise.$inferSelect;
export type VaultTask = typeof vaultTasks.$inferSelect;
