import { index, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { agents } from "./agents";
import { rooms } from "./rooms";

/** How an agent from another system reaches its room. */
export type ExternalProtocol = "mcp";

/**
 * A token that lets one agent from another system (an MCP client) act in one room as one named
 * teammate. The client holds the token; we keep its hash. A revoked or expired token is refused.
 */
export const externalTokens = pgTable(
  "external_tokens",
  {
    id: text("id").primaryKey(),
    roomId: text("room_id")
      .notNull()
      .references(() => rooms.id, { onDelete: "cascade" }),
    /** The teammate the token acts as: an agent row of the room whose model is `external:<protocol>`. */
    agentId: text("agent_id")
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
    protocol: text("protocol").$type<ExternalProtocol>().notNull(),
    tokenHash: text("token_hash").notNull(),
    /** Who invited it: a seat (`human:<id>`) or `admin`. */
    createdBy: text("created_by").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true }),
  },
  (table) => [uniqueIndex("external_tokens_hash_idx").on(table.tokenHash), index("external_tokens_room_idx").on(table.roomId)],
);

export type ExternalToken = typeof externalTokens.$inferSelect;
