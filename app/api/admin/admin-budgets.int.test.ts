import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { adminActions, instanceSettings, usageHourly } from "@/db/schema";
import { startAgentRun } from "@/lib/agents/start-agent-run";
import { AppError } from "@/lib/errors";
import { readTodaysBudgets } from "@/lib/limits/budget";
import { agentByPersona } from "@/test/agents";
import { alice, createTestRoom } from "@/test/fixtures";
import { call, fromOwnAddress } from "@/test/http";
import { useTestRuntime } from "@/test/test-runtime";
import { GET as readBudgetsRoute, PATCH as setBudgets } from "./instance/budgets/route";
import { GET as instance } from "./instance/route";
import { GET as overview } from "./overview/route";

const TOKEN = "admin-token-for-budget-tests";
const admin = { authorization: `Bearer ${TOKEN}` };
let saved: string | undefined;

beforeAll(() => {
  saved = process.env.ADMIN_TOKEN;
  process.env.ADMIN_TOKEN = TOKEN;
});
afterAll(() => {
  if (saved === undefined) delete process.env.ADMIN_TOKEN;
  else process.env.ADMIN_TOKEN = saved;
});
afterEach(() => {
  vi.unstubAllEnvs();
});

const context = useTestRuntime();
const db = () => context.database.db;

const patch = (body: unknown, headers: Record<string, string> = admin) =>
  call(setBudgets, { url: "/api/admin/instance/budgets", method: "PATCH", params: {}, body, headers });
const read = (headers: Record<string, string> = admin) =>
  call(readBudgetsRoute, { url: "/api/admin/instance/budgets", method: "GET", params: {}, headers });
const audited = () => db().select().from(adminActions);
const stored = () => db().select().from(instanceSettings);

/** What the room's Songwriter spent this hour, as its model calls would have added it up. */
async function spend(roomId: string, costUsd: number) {
  const songwriter = await agentByPersona(context.database, roomId, "songwriter");
  const hour = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000);
  await db().insert(usageHourly).values({
    hour,
    agentId: songwriter.id,
    model: "openai:gpt-4o",
    roomId,
    identity: songwriter.identity,
    agentName: songwriter.name,
    calls: 1,
    inputTokens: 100,
    outputTokens: 0,
    costUsd,
  });
}

describe("the server's daily budgets, set from the dashboard", () => {
  it("take the environment's values until an admin sets them", async () => {
    vi.stubEnv("PARLEY_INSTANCE_DAILY_TOKENS", "0");
    vi.stubEnv("PARLEY_INSTANCE_DAILY_COST_USD", "20");
    const { status, body } = await read();
    expect(status).toBe(200);
    expect(body.budgets).toEqual({
      settings: { daily_token_budget: null, daily_cost_budget_usd: null },
      defaults: { tokens: 0, costUsd: 20 },
      limits: { tokens: 0, costUsd: 20 },
    });
    expect((await call(instance, { url: "/api/admin/instance", method: "GET", params: {}, headers: admin })).body.instance.budgets).toEqual(
      body.budgets,
    );
  });

  it("are set by an admin, recorded in the audit trail, and stop runs in every room from then on", async () => {
    vi.stubEnv("PARLEY_INSTANCE_DAILY_COST_USD", "20");
    const { roomId } = await createTestRoom(db());
    await spend(roomId, 0.6);
    const songwriter = await agentByPersona(context.database, roomId, "songwriter");
    // Within the environment's $20, a run starts.
    await startAgentRun(db(), roomId, { agentId: songwriter.id, prompt: "Before" }, alice);

    const set = await patch({ daily_cost_budget_usd: 0.5, daily_token_budget: 1_000_000 });
    expect(set.status).toBe(200);
    expect(set.body.budgets).toMatchObject({
      settings: { daily_cost_budget_usd: 0.5, daily_token_budget: 1_000_000 },
      limits: { costUsd: 0.5, tokens: 1_000_000 },
    });
    const [record] = await audited();
    expect(record).toMatchObject({
      actor: "admin",
      action: "instance.budgets_updated",
      roomId: null,
      details: {
        before: { daily_token_budget: null, daily_cost_budget_usd: null },
        after: { daily_token_budget: 1_000_000, daily_cost_budget_usd: 0.5 },
      },
    });
    expect(record!.summary).toBe(
      "Set the server's daily budgets: tokens a day 1,000,000 tokens (was the default (none)), cost a day $0.50 (was the default ($20.00))",
    );

    // Every instance on the database reads them: the budget checks, the overview and the room's budgets.
    const budgets = await readTodaysBudgets(db());
    expect(budgets.instance.daily.costUsd).toMatchObject({ limit: 0.5, left: 0 });
    expect(
      (await call(overview, { url: "/api/admin/overview?range=day", method: "GET", params: {}, headers: admin })).body.overview.budget
        .costUsd,
    ).toMatchObject({ limit: 0.5 });
    const other = await createTestRoom(db());
    const painter = await agentByPersona(context.database, other.roomId, "scene-painter");
    const refused = await startAgentRun(db(), other.roomId, { agentId: painter.id, prompt: "After" }, alice).catch(
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ status: 429, code: "budget_exceeded" });
    expect((refused as AppError).message).toMatch(/server's daily cost budget is spent \(\$[0-9.]+ of \$0\.50 used today\)/);

    // The same values again change and record nothing; null goes back to the environment's value.
    expect((await patch({ daily_cost_budget_usd: 0.5 })).status).toBe(200);
    expect(await audited()).toHaveLength(1);
    const back = await patch({ daily_cost_budget_usd: null });
    expect(back.body.budgets).toMatchObject({
      settings: { daily_cost_budget_usd: null, daily_token_budget: 1_000_000 },
      limits: { costUsd: 20 },
    });
    expect((await audited()).map((row) => row.summary)).toContain(
      "Set the server's daily budgets: cost a day the default ($20.00) (was $0.50)",
    );
    expect((await stored()).map((row) => row.name)).toEqual(["daily_token_budget"]);
    await startAgentRun(db(), other.roomId, { agentId: painter.id, prompt: "Again" }, alice);
    expect((await patch({ daily_token_budget: null })).status).toBe(200);
  });

  it("refuse a bad value with a 400 that names it, changing nothing", async () => {
    const before = { audit: (await audited()).length, stored: await stored() };
    const bad: [unknown, RegExp][] = [
      [{ daily_cost_budget_usd: -1 }, /^daily_cost_budget_usd: /],
      [{ daily_cost_budget_usd: 100_001 }, /^daily_cost_budget_usd: /],
      [{ daily_token_budget: 1.5 }, /^daily_token_budget: /],
      [{ daily_token_budget: "1000" }, /^daily_token_budget: /],
      [{ daily_budget: 5 }, /unknown field\(s\) daily_budget/],
      [{}, /send daily_token_budget, daily_cost_budget_usd or both/],
      ["[1000]", /expected object/i],
      ["{ not json", /Malformed JSON/],
      ["", /Expected a JSON body/],
    ];
    for (const [body, reason] of bad) {
      const answer = await patch(body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error.message, JSON.stringify(body)).toMatch(reason);
    }
    expect((await audited()).length).toBe(before.audit);
    expect(await stored()).toEqual(before.stored);
  });

  it("are for admins only: 401 without credentials and 403 with wrong ones, changing nothing", async () => {
    const before = (await audited()).length;
    for (const [headers, expected] of [
      [{}, 401],
      [{ authorization: "Bearer wrong-token-wrong-token" }, 403],
    ] as const) {
      expect((await patch({ daily_cost_budget_usd: 1000 }, fromOwnAddress(headers))).status).toBe(expected);
      expect((await read(fromOwnAddress(headers))).status).toBe(expected);
    }
    expect(await audited()).toHaveLength(before);
    expect(await stored()).toEqual([]);
  });
});
