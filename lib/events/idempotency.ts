import { createHash } from "node:crypto";
import type { StoredEventType } from "@/lib/protocol";

/** JSON with every object's keys in order, so equal values always read the same. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/**
 * What a keyed write changes: the type of its first event and, for a change to something that
 * exists, that thing's id (`subject`); and who asked for what (`request`: the author and the
 * input). A retry must name the same change, or it is refused rather than answered with another
 * change's result.
 */
export interface ChangeIdentity<T extends StoredEventType = StoredEventType> {
  type: T;
  subject?: string;
  request?: unknown;
}

/** The hash stored beside an idempotency key: everything the keyed write asked for. */
export function changeFingerprint(change: ChangeIdentity): string {
  return createHash("sha256")
    .update(`${change.type}\n${change.subject ?? ""}\n${canonicalJson(change.request ?? null)}`)
    .digest("base64url");
}
