import { type Env, getEnv } from "@/lib/env";
import { forbidden } from "@/lib/errors";

export type RoomCreationPolicy = "anyone" | "admins";

/** The keys that make a provider's calls cost money. A local OpenAI-compatible server without a key does not count. */
const PAID_KEYS = ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GOOGLE_GENERATIVE_AI_API_KEY", "OPENAI_COMPATIBLE_API_KEY"] as const;

/**
 * Who may create rooms and import teams: `PARLEY_ROOM_CREATION` when it says; otherwise anyone
 * while only the offline model is configured, and admins only once a paid provider's key is
 * set, since then every new room is somebody's bill.
 */
function roomCreationPolicy(env: Env = getEnv()): { policy: RoomCreationPolicy; reason: string } {
  if (env.PARLEY_ROOM_CREATION !== "auto") {
    return { policy: env.PARLEY_ROOM_CREATION, reason: `PARLEY_ROOM_CREATION is ${env.PARLEY_ROOM_CREATION}` };
  }
  const paid = PAID_KEYS.filter((key) => env[key]);
  return paid.length > 0
    ? { policy: "admins", reason: `a paid provider is configured (${paid.join(", ")})` }
    : { policy: "anyone", reason: "only the offline model is configured" };
}

/** Refuses someone who is not an admin where only admins may create rooms (403). */
export function assertMayCreateRooms(isAdmin: boolean, what: "create rooms" | "import teams", env: Env = getEnv()): void {
  if (isAdmin) return;
  const { policy } = roomCreationPolicy(env);
  if (policy === "admins") throw forbidden(`Only admins may ${what} on this server. Sign in at /admin first.`);
}
