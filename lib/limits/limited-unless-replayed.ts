import { and, eq } from "drizzle-orm";
import { events } from "@/db/schema";
import { rateLimitedPerAddress } from "@/lib/http/rate-limited";
import type { RateRuleName } from "@/lib/limits/rate-limit";
import { getRuntime } from "@/lib/runtime";

/**
 * `rateLimitedPerAddress`, except for a retry: a request whose `Idempotency-Key` a write in the
 * room was already made under goes straight to its handler, which answers it with what the
 * first request was answered (or a 409 when the key was used for something else). A retry
 * spends nothing, so it is not counted, and a start that succeeded is still a 201 when its
 * answer was lost and the address has since used up its allowance.
 */
export function rateLimitedUnlessReplayed<C extends { params: Promise<{ roomId: string }> }>(
  name: RateRuleName,
  handler: (request: Request, context: C) => Promise<Response>,
) {
  const limited = rateLimitedPerAddress(name, handler);
  return async (request: Request, context: C): Promise<Response> => {
    const key = request.headers.get("idempotency-key");
    if (key) {
      const { roomId } = await context.params;
      const db = (await getRuntime()).database.db;
      const [earlier] = await db
        .select({ seq: events.seq })
        .from(events)
        .where(and(eq(events.roomId, roomId), eq(events.idempotencyKey, key)))
        .limit(1);
      if (earlier) return handler(request, context);
    }
    return limited(request, context);
  };
}
