import { z } from "zod";

/**
 * How a participant's message reaches its agent; `inbox`: an outside agent's, kept until its own
 * client reads it (Parley starts no run for it).
 */
const commandDeliverySchema = z.enum(["next_step", "queued_run", "new_run", "inbox"]);
export type CommandDelivery = z.infer<typeof commandDeliverySchema>;

/** A participant's message to one agent (`@Name …`), as the room sees it. */
export const commandSchema = z.object({
  id: z.string(),
  agentId: z.string(),
  senderId: z.string(),
  senderName: z.string(),
  text: z.string(),
  delivery: commandDeliverySchema,
  /** The run that will read it: running, queued, or started for it. */
  runId: z.string().nullable(),
  createdAt: z.string(),
});
export type CommandDto = z.infer<typeof commandSchema>;

/** An agent's knowledge vault as its card shows it (read-only). */
const vaultSchema = z.object({
  identity: z.string(),
  areas: z.array(z.object({ area: z.string(), level: z.number().int() })),
  insights: z.array(z.object({ id: z.string(), text: z.string(), createdAt: z.string() })),
  tasks: z.array(
    z.object({
      id: z.string(),
      asked: z.string(),
      outcome: z.string(),
      steps: z.number().int(),
      costUsd: z.number(),
      createdAt: z.string(),
    }),
  ),
});
export type VaultDto = z.infer<typeof vaultSchema>;
