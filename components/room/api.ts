"use client";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const RETRY_DELAYS_MS = [300, 1000, 2500];

/**
 * Sends a write to the API with an idempotency key, retrying network failures with the
 * same key so a write the server already applied is not applied twice.
 */
export async function apiWrite<T = unknown>(url: string, method: string, body?: unknown): Promise<T> {
  const key = crypto.randomUUID();
  for (let attempt = 0; ; attempt++) {
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers: { "content-type": "application/json", "idempotency-key": key },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (error) {
      if (attempt >= RETRY_DELAYS_MS.length) throw error;
      await new Promise((resolve) => setTimeout(resolve, RETRY_DELAYS_MS[attempt]));
      continue;
    }
    const text = await response.text();
    const data = text ? JSON.parse(text) : null;
    if (!response.ok) throw new ApiError(response.status, data?.error?.message ?? response.statusText);
    return data as T;
  }
}
