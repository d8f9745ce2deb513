import { index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { rooms } from "./rooms";

export const agents = pgTable(
  "agents",
  {
    id: text("id").primaryKey(),
    roomId: text("room_id")
      .notNull()
      .references(() => rooms.id, { onDelete: "cascade" }),
    /** Stable persona key within the room, e.g. `songwriter`. */
    persona: text("persona").notNull(),
    name: text("name").notNull(),
    role: text("role").notNull(),
    description: text("description").notNull(),
    color: text("color").notNull(),
    /** `provider:model`, e.g. `script:songwriter` or `openai:gpt-5`. */
    model: text("model").notNull(),
    /**
     * Who the agent is beyond its room: `<template>/<persona>` (an imported team's agent is
     * keyed by its id in the file). Every room with the same identity shares its knowledge vault.
     */
    identity: text("identity").notNull(),
    systemPrompt: text("system_prompt").notNull().default(""),
    /** Where and how its model is called: its own endpoint, the variable holding its key, generation settings. */
    modelOptions: jsonb("model_options").$type<AgentModelOptions>().notNull().default({}),
    position: integer("position").notNull().default(0),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    index("agents_room_idx").on(table.roomId),
    uniqueIndex("agents_room_persona_idx").on(table.roomId, table.persona),
    index("agents_identity_idx").on(table.identity),
  ],
);

/** An agent's own model settings, beside its `provider:model`. */
export interface AgentModelOptions {
  /** The agent's own endpoint (an OpenAI-compatible server, a proxy), over the server-wide one. */
  baseUrl?: string;
  /** The environment variable holding the agent's API key (never the key itself). */
  apiKeyEnv?: string;
  temperature?: number;
  topP?: number;
  maxOutputTokens?: number;
}

export type Agent = typeof agents.$inferSelect;
export type NewAgent = typeof agents.$inferInsert;
