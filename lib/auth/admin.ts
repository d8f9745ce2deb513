import fs from "node:fs";
import path from "node:path";
import type { Db } from "@/db";
import { dataDir, getEnv } from "@/lib/env";
import { forbidden, unauthorized } from "@/lib/errors";
import { instanceSecret } from "./instance-secret";
import { hmac, randomToken, safeEqual } from "./tokens";

export const ADMIN_COOKIE = "parley_admin";
const SESSION_MESSAGE = "parley-admin-session-v2";

const globalForAdmin = globalThis as unknown as { __parleyAdminToken?: string };

/**
 * The admin token: `ADMIN_TOKEN` when set; otherwise one generated on first start and
 * kept in the data directory (mode 600), as notebook servers do. `announce` prints it.
 */
export function resolveAdminToken(options: { announce?: (message: string) => void } = {}): string {
  const env = getEnv();
  if (env.ADMIN_TOKEN) return env.ADMIN_TOKEN;
  if (globalForAdmin.__parleyAdminToken) return globalForAdmin.__parleyAdminToken;
  const file = path.join(dataDir(env), "admin-token");
  let token: string;
  let created = false;
  try {
    token = fs.readFileSync(file, "utf8").trim();
  } catch {
    token = "";
  }
  if (token.length < 16) {
    token = randomToken(24);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `${token}\n`, { mode: 0o600 });
    created = true;
  }
  globalForAdmin.__parleyAdminToken = token;
  options.announce?.(
    `${created ? "Generated an admin token" : "Admin token"} (kept in ${file}):\n    ${token}\n` +
      "  Sign in at /admin with it, or set ADMIN_TOKEN to choose your own.",
  );
  return token;
}

/**
 * The cookie value that proves an admin signed in: the admin token signed with the instance's
 * own session key (`instanceSecret`), which never leaves the database, so knowing or guessing
 * the token is not enough to make one: only signing in is. Changes when the token changes.
 */
export async function adminSessionValue(db: Db, token: string = resolveAdminToken()): Promise<string> {
  return hmac(await instanceSecret(db, "admin-session"), `${SESSION_MESSAGE}\n${token}`);
}

export function isValidAdminToken(candidate: string): boolean {
  return safeEqual(candidate, resolveAdminToken());
}

export type AdminStatus = "admin" | "anonymous" | "invalid";

/**
 * Whether an admin session cookie is one that signing in set (with the current token): "invalid"
 * for any other, "anonymous" without one. A bearer token is a guess at the token itself and goes
 * through `verifyAdminToken` instead, which throttles wrong ones.
 */
export async function adminStatus(db: Db, credentials: { cookie?: string }): Promise<AdminStatus> {
  if (credentials.cookie === undefined) return "anonymous";
  return safeEqual(credentials.cookie, await adminSessionValue(db)) ? "admin" : "invalid";
}

export function assertAdmin(status: AdminStatus): void {
  if (status === "anonymous") throw unauthorized();
  if (status === "invalid") throw forbidden("Those admin credentials are not valid.");
}
