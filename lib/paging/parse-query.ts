import { z } from "zod";
import { badRequest } from "@/lib/errors";

/**
 * Reads a query string with `schema` (a strict object, so unknown parameters are refused).
 * A parameter given more than once is a 400 rather than one of its values chosen silently;
 * so are unknown parameters and bad values, each named in the reason.
 */
export function parseQuery<T extends z.ZodType>(schema: T, params: URLSearchParams): z.infer<T> {
  const raw: Record<string, string> = {};
  for (const [key, value] of params) {
    if (Object.hasOwn(raw, key)) throw badRequest(`${key} is given more than once.`);
    raw[key] = value;
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    throw badRequest(
      parsed.error.issues
        .map((issue) =>
          issue.code === "unrecognized_keys"
            ? `unknown parameter(s) ${issue.keys.join(", ")}${schema instanceof z.ZodObject ? `; use ${Object.keys(schema.shape).join(", ")}` : ""}`
            : `${issue.path.join(".")}: ${issue.message}`,
        )
        .join("; "),
    );
  }
  return parsed.data;
}
