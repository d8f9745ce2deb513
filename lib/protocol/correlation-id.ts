import { createHash, randomBytes } from "node:crypto";

export interface CorrelationIdInput {
  /** What the workflow belongs to, e.g. a room or run id; shortened and sanitised. */
  scope: string;
  /** What started the workflow (a prompt, a command); hashed, never stored in clear. */
  subject: string;
  now?: Date;
  /** Random hex; injectable for deterministic tests. */
  random?: () => string;
}

const SCOPE_LENGTH = 24;

/**
 * A correlation id in the protocol's `{scope}_{subject hash}_{timestamp}` form, plus a
 * random part so that two workflows with the same subject in the same millisecond differ.
 * Example: `room-3f9a2c_5d41402abc4b_1763807400123_9c1e4f7a2b6d0e83`.
 */
export function createCorrelationId(input: CorrelationIdInput): string {
  const scope = input.scope.replace(/[^A-Za-z0-9-]/g, "-").slice(0, SCOPE_LENGTH) || "parley";
  const subjectHash = createHash("sha256").update(input.subject).digest("hex").slice(0, 12);
  const timestamp = (input.now ?? new Date()).getTime();
  const random = input.random ? input.random() : randomBytes(8).toString("hex");
  return `${scope}_${subjectHash}_${timestamp}_${random}`;
}

const CORRELATION_ID_PATTERN = /^[A-Za-z0-9-]{1,24}_[0-9a-f]{12}_\d{10,}_[0-9a-f]{8,}$/;

export function isCorrelationId(value: string): boolean {
  return CORRELATION_ID_PATTERN.test(value);
}
