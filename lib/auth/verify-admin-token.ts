import type { DbOrTx } from "@/db";
import { rateLimited, rateRules, rateWait, takeRate } from "@/lib/limits/rate-limit";
import { isValidAdminToken } from "./admin";

/**
 * Checks a guess at the admin token from one client address: a sign-in's, or a bearer token
 * sent with any request. Wrong guesses are throttled per address
 * (`PARLEY_ADMIN_SIGN_INS_PER_MINUTE`, 5 a minute by default), whichever route they came to:
 * once the address has spent its allowance, every guess is a 429 until it refills, the right
 * token's too, so that guessing learns nothing. Only wrong guesses count.
 */
export async function verifyAdminToken(db: DbOrTx, token: string, address: string): Promise<boolean> {
  const rule = rateRules().adminSignIn;
  if (isValidAdminToken(token)) {
    const waiting = await rateWait(db, rule, address);
    if (!waiting.allowed) throw rateLimited(rule, waiting);
    return true;
  }
  // Counting a failure refuses it, changing nothing, when the address must wait already.
  const counted = await takeRate(db, rule, address);
  if (!counted.allowed) throw rateLimited(rule, counted);
  return false;
}
