import AxeBuilder from "@axe-core/playwright";
import { type Page, expect } from "@playwright/test";

/**
 * Runs axe-core over the page as it is now (WCAG 2.1 A and AA rules and axe's best practices)
 * and fails on any serious or critical violation, naming each rule and the elements it found.
 */
export async function expectAccessible(page: Page, where: string): Promise<void> {
  const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]).analyze();
  const serious = results.violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map(
      (violation) =>
        `${violation.id} (${violation.impact}): ${violation.help} — ${violation.nodes
          .slice(0, 5)
          .map(
            (node) =>
              `${node.target.join(" ")}${node.failureSummary ? ` [${node.failureSummary.replace(/\s+/g, " ").slice(0, 160)}]` : ""}`,
          )
          .join("; ")}`,
    );
  expect(serious, `axe found serious or critical violations on ${where}`).toEqual([]);
}
