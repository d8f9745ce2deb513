/** An expected failure with an HTTP status and a reason people can act on. Bugs throw plain errors. */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
    /** Headers the answer carries, such as `Retry-After`. */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = "AppError";
  }

  toJSON() {
    return { error: { code: this.code, message: this.message, ...(this.details ? { details: this.details } : {}) } };
  }

  toResponse(): Response {
    return Response.json(this.toJSON(), { status: this.status, headers: this.headers });
  }
}

export const badRequest = (message: string, details?: unknown) => new AppError(400, "bad_request", message, details);
export const unauthorized = (message = "Sign in as an admin first.") => new AppError(401, "unauthorized", message);
export const forbidden = (message: string) => new AppError(403, "forbidden", message);
export const notFound = (what: string) => new AppError(404, "not_found", `${what} not found.`);
export const conflict = (message: string) => new AppError(409, "conflict", message);
/** A 429 saying when to try again (`Retry-After`, whole seconds); `code` tells a rate limit from a spent budget. */
export const tooManyRequests = (
  message: string,
  retryAfterSeconds: number,
  code: "too_many_requests" | "budget_exceeded" = "too_many_requests",
) => new AppError(429, code, message, { retryAfterSeconds }, { "Retry-After": String(retryAfterSeconds) });
export const payloadTooLarge = (limit: number) => new AppError(413, "payload_too_large", `Request body is larger than ${limit} bytes.`);

/**
 * PostgreSQL's answers to text it cannot store (a NUL character, say, in an id taken from a
 * path): the request was bad, not the server. Checked on the error and on what it wraps.
 */
const UNSTORABLE_TEXT_CODES = new Set(["22021", "22P05"]);

/** A 400 for a database error caused by text that cannot be stored; null for any other error. */
export function unstorableTextError(error: unknown): AppError | null {
  for (let current = error, depth = 0; current && depth < 4; current = (current as { cause?: unknown }).cause, depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && UNSTORABLE_TEXT_CODES.has(code)) {
      return badRequest("The request contains characters that cannot be stored (such as U+0000).");
    }
  }
  return null;
}
