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
  /** The variable the endpoint was read from when the file wrote it as `${NAME}`: shown instead of its value. */
  baseUrlEnv?: string;
  /** MCP servers whose tools the agent may call beside Parley's own, as its team's file names them. */
  mcpServers?: AgentMcpServer[];
  temperature?: number;
  topP?: number;
  maxOutputTokens?: number;
}

/** Which of an MCP server's tools an agent is offered (by the server's own tool names; all when unset), and who imported it. */
interface McpServerCommon {
  /** The server's name in the file: its tools reach the model as `mcp__<name>__<tool>`. */
  name: string;
  allowedTools?: string[];
  excludedTools?: string[];
  /** An admin's import may name unlisted public addresses; only an admin's import may ever start a command. */
  importedByAdmin: boolean;
}

/**
 * An MCP server an agent's tools come from: one reached over HTTP (Streamable HTTP, or the older
 * HTTP+SSE), or one started as a local command. Secrets are never stored: headers and a
 * command's environment name the variables that hold them.
 */
export type AgentMcpServer =
  | ({
      transport: "streamable-http" | "sse";
      url: string;
      /** Header name → its value, the secret in it named as `${VARIABLE}` (`Bearer ${NOTION_TOKEN}`). */
      headers?: Record<string, string>;
    } & McpServerCommon)
  | ({
      transport: "stdio";
      command: string;
      args: string[];
      /** The command's environment beyond the basics (PATH, HOME…): each value as written, `${VARIABLE}`s filled in. */
      env?: Record<string, string>;
    } & McpServerCommon);

export type Agent = typeof agents.$inferSelect;
export type NewAgent = typeof agents.$inferInsert;
