// Runs before every page and API request but the live path's: refuses writes from other sites
// (JSON 403), and gives each page a Content-Security-Policy with a fresh nonce for Next.js's own scripts.
import { type NextRequest, NextResponse } from "next/server";
import { crossOriginRefusal, pageContentSecurityPolicy } from "@/lib/http/security";

export function proxy(request: NextRequest) {
  if (request.nextUrl.pathname.startsWith("/api/")) {
    const refusal = crossOriginRefusal(request.method, request.headers);
    if (refusal) return NextResponse.json({ error: { code: "forbidden", message: refusal } }, { status: 403 });
    return NextResponse.next();
  }
  const nonce = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64");
  const https = (request.headers.get("x-forwarded-proto") ?? request.nextUrl.protocol.replace(":", "")) === "https";
  const policy = pageContentSecurityPolicy(nonce, { development: process.env.NODE_ENV === "development", https });
  // Next.js reads the nonce from the request's policy and puts it on the scripts it renders.
  const headers = new Headers(request.headers);
  headers.set("x-nonce", nonce);
  headers.set("content-security-policy", policy);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set("content-security-policy", policy);
  return response;
}

export const config = {
  matcher: [
    // Every API route but the live path (a room's event stream and canvas writes, made many
    // times a second): running the proxy costs each request about 2 ms of server CPU, so those
    // Pages API routes refuse other sites' writes themselves (pagesRoutes).
    "/api/((?!rooms/[^/]+/(?:nodes|edges|events)(?:/[^/]+)?$).*)",
    {
      // Pages, not their static files; prefetches render no document.
      source: "/((?!api/|_next/static|_next/image|favicon.ico).*)",
      missing: [
        { type: "header", key: "next-router-prefetch" },
        { type: "header", key: "purpose", value: "prefetch" },
      ],
    },
  ],
};
