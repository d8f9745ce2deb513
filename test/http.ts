import { jsonRequest, params } from "./test-runtime";

type Handler<P extends Record<string, string>> = (request: Request, context: { params: Promise<P> }) => Promise<Response>;

/** Calls a route handler as the browser would, optionally with cookies and raw bodies. */
export async function call<P extends Record<string, string>>(
  handler: Handler<P>,
  options: { url: string; method: string; params: P; body?: unknown; cookie?: string; headers?: Record<string, string> },
) {
  const request = jsonRequest(options.url, options.method, options.body, {
    ...(options.cookie ? { cookie: options.cookie } : {}),
    ...options.headers,
  });
  const response = await handler(request, params(options.params));
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
}

/** `name=value` from a Set-Cookie header. */
export function cookieFrom(setCookie: string | null): string {
  if (!setCookie) throw new Error("No Set-Cookie header");
  return setCookie.split(";")[0]!;
}

let addressCounter = 0;

/**
 * `headers` sent from a client address no other request of the test run uses, so that what
 * one request counts against its address (failed admin tokens, say) never limits another.
 */
export function fromOwnAddress(headers: Record<string, string> = {}): Record<string, string> {
  addressCounter += 1;
  return { ...headers, "x-forwarded-for": `10.${addressCounter >> 16}.${(addressCounter >> 8) & 255}.${addressCounter & 255}` };
}
