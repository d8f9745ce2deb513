import { z } from "zod";

const messageStatusSchema = z.enum(["success", "error", "pending"]);
export type MessageStatus = z.infer<typeof messageStatusSchema>;

/** What went wrong, named like the envelope's own fields: `error_details { error_type, error_message, retry_possible }`. */
export const errorDetailsSchema = z.object({
  error_type: z.string(),
  error_message: z.string(),
  retry_possible: z.boolean(),
});
export type ErrorDetails = z.infer<typeof errorDetailsSchema>;

/** Error details as rows written before they took the protocol's names hold them. */
interface CamelCaseErrorDetails {
  errorType: string;
  errorMessage: string;
  retryPossible: boolean;
}

/** Error details as a row may hold them: in the protocol's names, or in the camelCase of older rows. */
export type StoredErrorDetails = ErrorDetails | CamelCaseErrorDetails;

/** Stored error details in the protocol's names, whichever names the row holds them in. */
export function readErrorDetails(stored: StoredErrorDetails | null | undefined): ErrorDetails | null {
  if (!stored) return null;
  if ("error_type" in stored) return stored;
  return { error_type: stored.errorType, error_message: stored.errorMessage, retry_possible: stored.retryPossible };
}

/**
 * The protocol message every event is: who sent it (`agent`), to whom (`target_agent`),
 * which workflow it belongs to (`correlation_id`) and what caused it (`causation_id`), what happened (`type`, `status`,
 * `payload`), what should follow (`next_steps`) and what went wrong (`error_details`).
 * `agent` is a sender id: an agent id, `human:<seat id>`, `admin` or `system`;
 * `agent_name` is how people see that sender.
 */
export const envelopeSchema = z.object({
  correlation_id: z.string().min(1),
  /** The event that caused this one; null for a workflow's root (and absent from logs written before causes were kept). */
  causation_id: z.string().nullish(),
  /** The W3C `traceparent` of the outside request that wrote this root, when it sent one. */
  trace_parent: z.string().optional(),
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
