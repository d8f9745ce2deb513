import type { DbOrTx } from "@/db";
import { type RateRuleName, enforceRate } from "@/lib/limits/rate-limit";
import { getRuntime } from "@/lib/runtime";
import { clientAddress } from "./client-address";
import { errorAnswer } from "./request";
import { isAdminRequest } from "./room-access";

/**
 * Counts a request against the named limit per client address (admins are not limited); over
 * it, a 429 with `Retry-After` and nothing else happens.
 */
export async function limitPerAddress(db: DbOrTx, request: Request, name: RateRuleName): Promise<void> {
  if (await isAdminRequest(request)) return;
  await enforceRate(db, name, clientAddress(request.headers));
}

/** A route handler behind `limitPerAddress`: refused requests never reach it. */
export function rateLimitedPerAddress<C>(name: RateRuleName, handler: (request: Request, context: C) => Promise<Response>) {
  return async (request: Request, context: C): Promise<Response> => {
    try {
      await limitPerAddress((await getRuntime()).database.db, request, name);
    } catch (error) {
      const answer = errorAnswer(error);
      return Response.json(answer.body, { status: answer.status, headers: answer.headers });
    }
    return handler(request, context);
  };
}
