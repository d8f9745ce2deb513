import { expect, test } from "./support/fixtures";

test("an imported team shows each agent's model and endpoint, the settings applied, and enters its room", async ({ page }) => {
  await page.goto("/");
  const yaml = [
    "task: Review the scraper's retry logic",
    "agents:",
    "  - id: local_coder",
    "    backend: { type: vllm, model: qwen2.5-coder, base_url: 'http://10.0.0.5:8000/v1', temperature: 0.2, seed: 7, top_k: 40, cwd: workspace }",
    "  - id: grok_reviewer",
    "    backend: { type: grok, model: grok-4 }",
    "orchestrator:",
    "  coordination: { broadcast: agents, broadcast_timeout: 120 }",
    "ui: { display_type: rich_terminal }",
  ].join("\n");
  await page.getByTestId("import-yaml").fill(yaml);
  await page.getByTestId("import-offline").uncheck();
  await page.getByTestId("import-submit").click();

  await expect(page.getByTestId("import-title")).toHaveText("Review the scraper's retry logic");
  const rows = page.getByTestId("import-agent");
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(0)).toContainText("local_coder");
  await expect(rows.nth(0)).toContainText("openai-compatible:qwen2.5-coder");
  await expect(rows.nth(0)).toContainText("http://10.0.0.5:8000/v1");
  await expect(rows.nth(1)).toContainText("https://api.x.ai/v1");
  await expect(page.getByTestId("import-broadcast")).toContainText("broadcast agents, broadcast timeout 120");
  await expect(rows.nth(0).getByTestId("import-agent-settings")).toHaveText("temperature 0.2 · seed 7");
  await expect(rows.nth(1).getByTestId("import-agent-settings")).toHaveText("the model's defaults");

  // What the file says and Parley does not use is listed: a setting the provider does not take, and unknown keys.
  await expect(page.getByTestId("import-result")).toContainText("openai-compatible models do not take top_k; it is ignored.");
  const ignored = page.getByTestId("import-ignored-keys");
  await expect(ignored.locator("summary")).toHaveText("3 keys Parley does not use were ignored");
  await ignored.locator("summary").click();
  await expect(page.getByTestId("import-ignored").locator("li")).toHaveText(["agents[0].backend.cwd", "agents[0].backend.top_k", "ui"]);

  await page.getByTestId("import-open").click();
  await expect(page).toHaveURL(/\/rooms\//);
  // Without its key on the server, the Grok agent says why it cannot run.
  await expect(page.getByTestId("agent-grok-reviewer").getByTestId("agent-unavailable")).toContainText("XAI_API_KEY");
});
