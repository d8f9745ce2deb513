import type { Db } from "@/db";
import { forbidden, unauthorized } from "@/lib/errors";
import { isLiveAdminSession } from "./admin-sessions";

export { isValidAdminToken, resolveAdminToken } from "./admin-token";

/** The cookie that holds an admin's session id (`startAdminSession`), and nothing else. */
export const ADMIN_COOKIE = "parley_admin";

export type AdminStatus = "admin" | "anonymous" | "invalid";

/**
 * Whether an admin session cookie names a live session (`isLiveAdminSession`): "invalid" for any
 * other — ended, expired, made with another admin token, or never made — "anonymous" without one.
 * A bearer token is a guess at the token itself and goes through `verifyAdminToken` instead, which
 * throttles wrong ones.
 */
export async function adminStatus(db: Db, credentials: { cookie?: string }): Promise<AdminStatus> {
  if (credentials.cookie === undefined) return "anonymous";
  return (await isLiveAdminSession(db, credentials.cookie)) ? "admin" : "invalid";
}

export function assertAdmin(status: AdminStatus): void {
  if (status === "anonymous") throw unauthorized();
  if (status === "invalid") throw forbidden("Those admin credentials are not valid.");
}
