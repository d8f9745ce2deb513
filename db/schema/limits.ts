import { pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

/**
 * Rate limits shared by every app instance, one row per limited thing (a rule and, say, a client
 * address). Each row holds the moment its allowance is next whole again (the generic cell rate
 * algorithm's theoretical arrival time): a request is let through while that moment is less than
 * one window ahead, and moves it on by one window's share. A row in the past means a full allowance.
 */
export const rateLimits = pgTable(
  "rate_limits",
  {
    /** The rule: `rooms`, `imports`, `seats`, `run-starts`, `admin-sign-in`. */
    bucket: text("bucket").notNull(),
    /** What the rule counts for: a client address, say. */
    subject: text("subject").notNull(),
    allowanceAt: timestamp("allowance_at", { withTimezone: true }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.bucket, table.subject] })],
);

export type RateLimitRow = typeof rateLimits.$inferSelect;
