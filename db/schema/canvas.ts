import { doublePrecision, index, integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { rooms } from "./rooms";

export const canvasNodes = pgTable(
  "canvas_nodes",
  {
    id: text("id").primaryKey(),
    roomId: text("room_id")
      .notNull()
      .references(() => rooms.id, { onDelete: "cascade" }),
    /** `note` for people's sticky notes; agents use richer kinds (`lyric`, `scene`, `idea`, …). */
    kind: text("kind").notNull().default("note"),
    text: text("text").notNull().default(""),
    x: doublePrecision("x").notNull(),
    y: doublePrecision("y").notNull(),
    width: doublePrecision("width"),
    height: doublePrecision("height"),
    color: text("color"),
    authorKind: text("author_kind").$type<"human" | "agent">().notNull(),
    authorId: text("author_id").notNull(),
    authorName: text("author_name").notNull(),
    version: integer("version").notNull().default(1),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index("canvas_nodes_room_idx").on(table.roomId)],
);

export const canvasEdges = pgTable(
  "canvas_edges",
  {
    id: text("id").primaryKey(),
    roomId: text("room_id")
      .notNull()
      .references(() => rooms.id, { onDelete: "cascade" }),
    sourceId: text("source_id")
      .notNull()
      .references(() => canvasNodes.id, { onDelete: "cascade" }),
    targetId: text("target_id")
      .notNull()
      .references(() => canvasNodes.id, { onDelete: "cascade" }),
    label: text("label").notNull().default(""),
    authorKind: text("author_kind").$type<"human" | "agent">().notNull(),
    authorId: text("author_id").notNull(),
    authorName: text("author_name").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index("canvas_edges_room_idx").on(table.roomId)],
);

export type CanvasNode = typeof canvasNodes.$inferSelect;
export type CanvasEdge = typeof canvasEdges.$inferSelect;
