import { type Env, getEnv } from "@/lib/env";
import { forbidden } from "@/lib/errors";
import { spendableKeyVariables } from "@/lib/models/agent-endpoint";

type RoomCreationPolicy = "anyone" | "admins";

/**
 * Who may create rooms and import teams: `PARLEY_ROOM_CREATION` when it says; otherwise anyone
 * while only the offline model is configured, and admins only once any key a room's agents could
 * spend on is set — a provider's server-wide key, or a variable imported teams may name — since
 * then every new room is somebody's bill. A local OpenAI-compatible server without a key does not
 * count. The reason is shown to whoever is refused, so it names no variable.
 */
function roomCreationPolicy(env: Env = getEnv(), secrets: NodeJS.ProcessEnv = process.env): { policy: RoomCreationPolicy; reason: string } {
  if (env.PARLEY_ROOM_CREATION !== "auto") {
    return { policy: env.PARLEY_ROOM_CREATION, reason: `PARLEY_ROOM_CREATION is ${env.PARLEY_ROOM_CREATION}` };
  }
  return spendableKeyVariables(env, secrets).length > 0
    ? { policy: "admins", reason: "a key for a paid model provider is set" }
    : { policy: "anyone", reason: "only the offline model is configured" };
}

/**
 * What the home page says before anyone tries: whether this person may create rooms here, and why
 * (`PARLEY_ROOM_CREATION`, or whether a paid provider's key is set).
 */
export function roomCreationNotice(isAdmin: boolean, env: Env = getEnv()): { allowed: boolean; text: string } {
  const { policy, reason } = roomCreationPolicy(env);
  if (policy === "anyone") return { allowed: true, text: `Anyone may create rooms on this server (${reason}).` };
  if (isAdmin) return { allowed: true, text: `Only admins may create rooms on this server (${reason}); you are signed in as one.` };
  return { allowed: false, text: `Only admins may create rooms on this server (${reason}). Sign in at /admin to create one.` };
}

/** Refuses someone who is not an admin where only admins may create rooms (403), saying why. */
export function assertMayCreateRooms(isAdmin: boolean, what: "create rooms" | "import teams", env: Env = getEnv()): void {
  if (isAdmin) return;
  const { policy, reason } = roomCreationPolicy(env);
  if (policy === "admins") throw forbidden(`Only admins may ${what} on this server (${reason}). Sign in at /admin first.`);
}
