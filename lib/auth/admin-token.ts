import fs from "node:fs";
import path from "node:path";
import type { Db } from "@/db";
import { dataDir, getEnv } from "@/lib/env";
import { instanceSecret } from "./instance-secret";
import { hmac, randomToken, safeEqual } from "./tokens";

const TOKEN_DIGEST_MESSAGE = "parley-admin-session-v2";

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

export function isValidAdminToken(candidate: string): boolean {
  return safeEqual(candidate, resolveAdminToken());
}

/**
 * Which admin token a session was made with: the token signed with the instance's own session key
 * (`instanceSecret`, which never leaves the database), so the sessions table does not hold the
 * token, nor anything it could be guessed back from. Changes when the token changes, and with it
 * every session made before is over.
 */
export async function adminTokenDigest(db: Db, token: string = resolveAdminToken()): Promise<string> {
  return hmac(await instanceSecret(db, "admin-session"), `${TOKEN_DIGEST_MESSAGE}\n${token}`);
}
