import { eq } from "drizzle-orm";
import type { Db } from "@/db";
import { instanceSecrets } from "@/db/schema";
import { randomToken } from "./tokens";

export type InstanceSecretName = "admin-session";

// On `globalThis`, as the database handle is, so separately bundled routes read a secret once between them.
const globalForSecrets = globalThis as unknown as { __parleyInstanceSecrets?: WeakMap<Db, Map<InstanceSecretName, Promise<string>>> };
globalForSecrets.__parleyInstanceSecrets ??= new WeakMap();
const loaded = globalForSecrets.__parleyInstanceSecrets;

/**
 * The instance's secret of that name: made at random by the first instance that asks for it and
 * kept in `instance_secrets`, so every instance on the same database uses the same one. Read once
 * per database handle (one a process) and kept in memory; a failed read is tried again next time.
 */
export function instanceSecret(db: Db, name: InstanceSecretName): Promise<string> {
  let secrets = loaded.get(db);
  if (!secrets) {
    secrets = new Map();
    loaded.set(db, secrets);
  }
  let secret = secrets.get(name);
  if (!secret) {
    secret = loadInstanceSecret(db, name).catch((error) => {
      secrets.delete(name);
      throw error;
    });
    secrets.set(name, secret);
  }
  return secret;
}

async function loadInstanceSecret(db: Db, name: InstanceSecretName): Promise<string> {
  // Instances starting together may both try to make it: the first insert wins, and all read the winner's.
  const [made] = await db
    .insert(instanceSecrets)
    .values({ name, value: randomToken(32) })
    .onConflictDoNothing()
    .returning({ value: instanceSecrets.value });
  if (made) return made.value;
  const [kept] = await db.select({ value: instanceSecrets.value }).from(instanceSecrets).where(eq(instanceSecrets.name, name));
  if (!kept) throw new Error(`The instance secret "${name}" could be neither made nor read.`);
  return kept.value;
}
