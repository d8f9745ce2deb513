import { z } from "zod";

export const messageStatusSchema = z.enum(["success", "error", "pending"]);
export type MessageStatus = z.infer<typeof messageStatusSchema>;

export const errorDetailsSchema = z.object({
  errorType: z.string(),
  errorMessage: z.string(),
  retryPossible: z.boolean(),
});
export type ErrorDetails = z.infer<typeof errorDetailsSchema>;

/**
 * The protocol message every event is: who sent it (`agent`), to whom (`target_agent`),
 * which workflow it belongs to (`correlation_id`), what happened (`type`, `status`,
 * `payload`), what should follow (`next_steps`) and what went wrong (`error_details`).
 * `agent` is a sender id: an agent id, `human:<seat id>`, `admin` or `system`;
 * `agent_name` is how people see that sender.
 */
export const envelopeSchema = z.object({
  correlation_id: z.string().min(1),
  agent: z.string().min(1),
  agent_name: z.string(),
  target_agent: z.string().nullable(),
  timestamp: z.string().datetime({ offset: true }),
  type: z.string(),
  status: messageStatusSchema,
  payload: z.record(z.string(), z.unknown()),
  next_steps: z.array(z.string()),
  error_details: errorDetailsSchema.nullable(),
});

/** Fields every stored event adds to its envelope. */
export const storedFieldsSchema = z.object({
  id: z.string(),
  room_id: z.string(),
  seq: z.number().int().positive(),
});
