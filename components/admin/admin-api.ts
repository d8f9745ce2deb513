"use client";

import { useQuery } from "@tanstack/react-query";
import { apiRequest } from "@/components/room/api";

/** A query string from the entries that have a value. */
export function queryString(entries: Record<string, string | number | null | undefined>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(entries))
    if (value !== null && value !== undefined && value !== "") params.set(key, String(value));
  const text = params.toString();
  return text ? `?${text}` : "";
}

/**
 * Reads an admin endpoint with react-query, again every `refreshMs` while the page is shown:
 * what the dashboard shows keeps up with the instance without a stream of its own.
 */
export function useAdminQuery<T>(url: string, options: { refreshMs?: number; initialData?: T; enabled?: boolean } = {}) {
  return useQuery({
    queryKey: ["admin", url],
    queryFn: () => apiRequest<T>(url, "GET"),
    refetchInterval: options.refreshMs ?? false,
    initialData: options.initialData,
    enabled: options.enabled ?? true,
  });
}
