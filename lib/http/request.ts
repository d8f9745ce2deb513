import { z } from "zod";
import { AppError, badRequest, payloadTooLarge } from "@/lib/errors";
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

export function parseInput<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw badRequest(describeZodError(parsed.error), { issues: parsed.error.issues });
  return parsed.data;
}

/** Reads a JSON body within the size limit and validates it; any problem is a 400 or 413 with the reason. */
export async function readJsonBody<T extends z.ZodType>(
  request: Request,
  schema: T,
  maxBytes: number = LIMITS.requestBodyBytes,
): Promise<z.infer<T>> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > maxBytes) throw payloadTooLarge(maxBytes);
  const text = await request.text();
  if (Buffer.byteLength(text) > maxBytes) throw payloadTooLarge(maxBytes);
  if (!text.trim()) throw badRequest("Expected a JSON body.");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw badRequest(`Malformed JSON: ${(error as Error).message}`);
  }
  return parseInput(schema, value);
}

export function idempotencyKey(request: Request): string | undefined {
  const key = request.headers.get("idempotency-key")?.trim();
  if (!key) return undefined;
  if (key.length > LIMITS.idempotencyKey) {
    throw badRequest(`Idempotency-Key is limited to ${LIMITS.idempotencyKey} characters.`);
  }
  return key;
}

/** Runs a route body, mapping expected failures to their status and anything else to a logged 500. */
export async function respond(work: () => Promise<Response>): Promise<Response> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof AppError) return error.toResponse();
    if (error instanceof z.ZodError) return badRequest(describeZodError(error)).toResponse();
    console.error("[http] unexpected error:", error);
    return Response.json({ error: { code: "internal", message: "Something went wrong on our side." } }, { status: 500 });
  }
}
