import type { Page } from "@playwright/test";

/** What a page reported that it should not have, each entry prefixed with the path it was on. */
export interface PageViolations {
  /** Content-Security-Policy violations: what the policy blocked. */
  csp: string[];
  /** Errors logged to the console (a failed hydration, a failed request) and errors nothing caught. */
  errors: string[];
}

const CSP_MESSAGE = /Content Security Policy|Refused to (load|execute|apply|connect|frame)/i;

/**
 * Collects every Content-Security-Policy violation a page reports, both as the browser logs it
 * and as the page's own `securitypolicyviolation` events, and every console error and uncaught
 * error. Call it before the page's first navigation; it keeps collecting across navigations.
 */
export async function watchViolations(page: Page): Promise<PageViolations> {
  const found: PageViolations = { csp: [], errors: [] };
  const where = () => {
    const url = page.url();
    return url.startsWith("http") ? new URL(url).pathname : url;
  };
  page.on("console", (message) => {
    const text = message.text();
    if (CSP_MESSAGE.test(text)) found.csp.push(`${where()}: ${text}`);
    else if (message.type() === "error") {
      // A failed request names only its status: say which it was.
      const source = message.location().url;
      found.errors.push(`${where()}: ${text}${source && /^Failed to load resource/.test(text) ? ` (${source})` : ""}`);
    }
  });
  page.on("pageerror", (error) => found.errors.push(`${where()}: ${error.message}`));
  await page.exposeFunction("reportViolation", (text: string) => found.csp.push(`${where()}: ${text}`));
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (event) => {
      (window as unknown as { reportViolation: (text: string) => void }).reportViolation(
        `${event.violatedDirective} blocked ${event.blockedURI}`,
      );
    });
  });
  return found;
}
