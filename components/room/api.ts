"use client";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Whether asking again may succeed: no answer at all (the network, a server on its way
 * down), a server error, or a 408/429; any other refusal would only be given again.
 */
export function isTransientFailure(error: unknown): boolean {
  if (!(error instanceof ApiError)) return true;
  return error.status >= 500 || error.status === 408 || error.status === 429;
}

interface SendOptions {
  idempotencyKey?: string;
  signal?: AbortSignal;
}

function send(url: string, method: string, body: unknown, options: SendOptions): Promise<Response> {
  return fetch(url, {
    method,
    headers: { "content-type": "application/json", ...(options.idempotencyKey ? { "idempotency-key": options.idempotencyKey } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: options.signal,
  });
}

/** The reason in an error body; none when the body is not ours (a proxy's page while the server restarts). */
function reasonIn(text: string): string | undefined {
  try {
    return JSON.parse(text)?.error?.message;
  } catch {
    return undefined;
  }
}

async function readAnswer<T>(response: Response): Promise<T> {
  const text = await response.text();
  if (!response.ok) throw new ApiError(response.status, reasonIn(text) ?? response.statusText);
  return (text ? JSON.parse(text) : null) as T;
}

/** Sends one request to the API, with no retries: for callers that retry on their own terms. */
export async function apiRequest<T = unknown>(url: string, method: string, body?: unknown, options: SendOptions = {}): Promise<T> {
  return readAnswer<T>(await send(url, method, body, options));
}

const RETRY_DELAYS_MS = [300, 1000, 2500];

/**
 * Sends a write to the API with an idempotency key, retrying with the same key when asking
 * again may succeed (no answer, a server error, 408, 429): the key makes a write the server
 * already applied come back as it was rather than be applied twice.
 */
export async function apiWrite<T = unknown>(url: string, method: string, body?: unknown): Promise<T> {
  const idempotencyKey = crypto.randomUUID();
  for (let attempt = 0; ; attempt++) {
    try {
      return await readAnswer<T>(await send(url, method, body, { idempotencyKey }));
    } catch (error) {
      if (attempt >= RETRY_DELAYS_MS.length || !isTransientFailure(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, RETRY_DELAYS_MS[attempt]));
    }
  }
}
