import { z } from "zod";
import { AppError, badRequest, payloadTooLarge, unstorableTextError } from "@/lib/errors";
import { withRequestCause } from "@/lib/events/cause";
import { LIMITS } from "@/lib/protocol";

export function parseCookies(header: string | null): Record<string, string> {
  // No prototype: a cookie named "constructor" or "__proto__" is just a cookie.
  const cookies: Record<string, string> = Object.create(null);
  if (!header) return cookies;
  for (const part of header.split(";")) {
    const index = part.indexOf("=");
    if (index < 0) continue;
    const name = part.slice(0, index).trim();
    const value = part.slice(index + 1).trim();
    if (!name) continue;
    try {
      cookies[name] = decodeURIComponent(value);
    } catch {
      cookies[name] = value;
    }
  }
  return cookies;
}

export function bearerToken(request: Request): string | undefined {
  const header = request.headers.get("authorization");
  const match = header?.match(/^Bearer\s+(.+)$/i);
  return match?.[1]?.trim();
}

/** Turns zod issues into one readable sentence naming each offending field. */
export function describeZodError(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const where = issue.path.length ? issue.path.join(".") : "body";
      if (issue.code === "unrecognized_keys") return `${where}: unknown field(s) ${issue.keys.join(", ")}`;
      return `${where}: ${issue.message}`;
    })
    .join("; ");
}

function parseInput<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw badRequest(describeZodError(parsed.error), { issues: parsed.error.issues });
  return parsed.data;
}

/**
 * Reads a request body as UTF-8 text, stopping as soon as it passes `maxBytes` (a 413) so an
 * oversized body is never held whole, whether or not it declared its length.
 */
export async function readText(request: Request, maxBytes: number): Promise<string> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > maxBytes) throw payloadTooLarge(maxBytes);
  if (!request.body) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw payloadTooLarge(maxBytes);
    }
    chunks.push(value);
  }
  return decodeUtf8(Buffer.concat(chunks, size));
}

/** A character no text column or JSON value in PostgreSQL can hold: NUL, or half of a surrogate pair. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is exactly what this looks for.
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The path of the first string (or key) in `value` that cannot be stored, or null. */
export function findUnstorableText(value: unknown, path: string[] = []): string | null {
  if (typeof value === "string") return UNSTORABLE.test(value) ? path.join(".") || "body" : null;
  if (typeof value !== "object" || value === null) return null;
  for (const [key, item] of Object.entries(value)) {
    if (UNSTORABLE.test(key)) return [...path, key].join(".");
    const found = findUnstorableText(item, [...path, key]);
    if (found) return found;
  }
  return null;
}

/** How deeply a request body's arrays and objects may nest: far more than any request needs. */
const MAX_JSON_DEPTH = 64;

/**
 * How deeply the JSON in `text` nests, counted without parsing it (brackets inside strings do
 * not count), stopping as soon as it passes `limit`: parsing and checking a value nested
 * thousands deep would overflow the stack.
 */
function jsonDepthExceeds(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === 0x5c) index++;
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) inString = true;
    else if (char === 0x7b || char === 0x5b) {
      if (++depth > limit) return true;
    } else if (char === 0x7d || char === 0x5d) depth--;
  }
  return false;
}

/** Parses a request body's text as JSON and validates it; any problem is a 400 with the reason. */
export function parseJsonText<T extends z.ZodType>(text: string, schema: T): z.infer<T> {
  if (!text.trim()) throw badRequest("Expected a JSON body.");
  if (jsonDepthExceeds(text, MAX_JSON_DEPTH)) throw badRequest(`The JSON body nests deeper than ${MAX_JSON_DEPTH} levels.`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw badRequest(`Malformed JSON: ${(error as Error).message}`);
  }
  const unstorable = findUnstorableText(value);
  if (unstorable) throw badRequest(`${unstorable}: contains a character that cannot be stored (U+0000 or an unpaired surrogate).`);
  return parseInput(schema, value);
}

/** Reads a JSON body within the size limit and validates it; any problem is a 400 or 413 with the reason. */
export async function readJsonBody<T extends z.ZodType>(
  request: Request,
  schema: T,
  maxBytes: number = LIMITS.requestBodyBytes,
): Promise<z.infer<T>> {
  return parseJsonText(await readText(request, maxBytes), schema);
}

/** Decodes a body's bytes as UTF-8, refusing anything else with a 400. */
export function decodeUtf8(bytes: Uint8Array): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw badRequest("The body is not valid UTF-8.");
  }
}

export function idempotencyKey(request: Request): string | undefined {
  return checkIdempotencyKey(request.headers.get("idempotency-key"));
}

/** A request's `Idempotency-Key` header, trimmed, when it has one; too long is a 400. */
export function checkIdempotencyKey(header: string | null | undefined): string | undefined {
  const key = header?.trim();
  if (!key) return undefined;
  if (key.length > LIMITS.idempotencyKey) {
    throw badRequest(`Idempotency-Key is limited to ${LIMITS.idempotencyKey} characters.`);
  }
  return key;
}

/** What a route answers: a status and a JSON body. */
export interface JsonAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** The answer to a failed request: expected failures with their status and reason, anything else a logged 500. */
export function errorAnswer(error: unknown): JsonAnswer {
  const known =
    error instanceof AppError ? error : error instanceof z.ZodError ? badRequest(describeZodError(error)) : unstorableTextError(error);
  if (known) return { status: known.status, body: known.toJSON(), ...(known.headers ? { headers: known.headers } : {}) };
  console.error("[http] unexpected error:", error);
  return { status: 500, body: { error: { code: "internal", message: "Something went wrong on our side." } } };
}

/**
 * Runs a route body, mapping expected failures to their status and anything else to a logged 500.
 * The events it writes form one tree under its first, joined to the caller's trace when the
 * request sent a valid `traceparent`. The request is required so that no route can forget it.
 */
export async function respond(work: () => Promise<Response>, request: Pick<Request, "headers">): Promise<Response> {
  try {
    return await withRequestCause(request.headers, work);
  } catch (error) {
    const answer = errorAnswer(error);
    return Response.json(answer.body, { status: answer.status, headers: answer.headers });
  }
}
