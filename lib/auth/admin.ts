import fs from "node:fs";
import path from "node:path";
import { dataDir, getEnv } from "@/lib/env";
import { forbidden, unauthorized } from "@/lib/errors";
import { hmac, randomToken, safeEqual } from "./tokens";

export const ADMIN_COOKIE = "parley_admin";
const SESSION_MESSAGE = "parley-admin-session-v1";

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

/** The cookie value that proves an admin signed in; changes when the token changes. */
export function adminSessionValue(token: string = resolveAdminToken()): string {
  return hmac(token, SESSION_MESSAGE);
}

export function isValidAdminToken(candidate: string): boolean {
  return safeEqual(candidate, resolveAdminToken());
}

export type AdminStatus = "admin" | "anonymous" | "invalid";

/** Whether a request comes from an admin: a session cookie or `Authorization: Bearer <token>`. */
export function adminStatus(credentials: { cookie?: string; bearer?: string }): AdminStatus {
  if (credentials.bearer !== undefined) return isValidAdminToken(credentials.bearer) ? "admin" : "invalid";
  if (credentials.cookie !== undefined) return safeEqual(credentials.cookie, adminSessionValue()) ? "admin" : "invalid";
  return "anonymous";
}

export function assertAdmin(status: AdminStatus): void {
  if (status === "anonymous") throw unauthorized();
  if (status === "invalid") throw forbidden("Those admin credentials are not valid.");
}
