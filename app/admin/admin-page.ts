import { cookies } from "next/headers";
import { ADMIN_COOKIE, type AdminStatus, adminStatus } from "@/lib/auth/admin";
import { getRuntime } from "@/lib/runtime";

/** Whether the page is asked for by a signed-in admin: each dashboard page reads nothing otherwise. */
export async function adminPageStatus(): Promise<AdminStatus> {
  const cookieStore = await cookies();
  const cookie = cookieStore.get(ADMIN_COOKIE)?.value;
  if (cookie === undefined) return "anonymous";
  const { database } = await getRuntime();
  return adminStatus(database.db, { cookie });
}

/** A page's search parameters, as Next.js hands them over. */
export type SearchParams = Promise<Record<string, string | string[] | undefined>>;

/** One search parameter's value, or null when it is missing, empty or given more than once. */
export function searchParam(search: Awaited<SearchParams>, key: string): string | null {
  const value = search[key];
  return typeof value === "string" && value ? value : null;
}
