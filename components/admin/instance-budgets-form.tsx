"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { apiWrite } from "@/components/room/api";
import type { InstanceBudgetSettings, InstanceBudgets } from "@/lib/limits/instance-budgets";
import { formatDollars, formatTokens } from "./admin-format";

/** A field's text as the setting it stands for: empty is the environment's value (null). */
function settingOf(text: string): number | null {
  return text.trim() === "" ? null : Number(text);
}

/** What a limit allows, in words: "none" for 0. */
function allowance(limit: number, cost: boolean): string {
  if (limit === 0) return "none";
  return cost ? `${formatDollars(limit)} a day` : `${formatTokens(limit)} tokens a day`;
}

/**
 * The server's daily budgets, set from the dashboard: tokens and dollars a day for every room
 * together. A field left empty takes the environment's value (shown beside it); 0 turns a
 * budget off. The server checks what is sent and says what is wrong.
 */
export function InstanceBudgetsForm({ budgets }: { budgets: InstanceBudgets }) {
  const queryClient = useQueryClient();
  const text = (value: number | null) => (value === null ? "" : String(value));
  const [tokens, setTokens] = useState(text(budgets.settings.daily_token_budget));
  const [cost, setCost] = useState(text(budgets.settings.daily_cost_budget_usd));
  const [message, setMessage] = useState<{ text: string; error?: boolean } | null>(null);
  const [saving, setSaving] = useState(false);
  const next: InstanceBudgetSettings = { daily_token_budget: settingOf(tokens), daily_cost_budget_usd: settingOf(cost) };
  const changed =
    next.daily_token_budget !== budgets.settings.daily_token_budget ||
    next.daily_cost_budget_usd !== budgets.settings.daily_cost_budget_usd;
  return (
    <form
      className="settings"
      data-testid="instance-budgets"
      onSubmit={async (event) => {
        event.preventDefault();
        setSaving(true);
        setMessage(null);
        try {
          await apiWrite("/api/admin/instance/budgets", "PATCH", next);
          setMessage({ text: "Budgets saved." });
          void queryClient.invalidateQueries({ queryKey: ["admin"] });
        } catch (failure) {
          setMessage({ text: (failure as Error).message, error: true });
        } finally {
          setSaving(false);
        }
      }}
    >
      <label className="settings__field">
        <span>Tokens a day (empty: {allowance(budgets.defaults.tokens, false)}, from the environment; 0: none)</span>
        <input
          type="number"
          name="daily_token_budget"
          min={0}
          step={1}
          value={tokens}
          placeholder={String(budgets.defaults.tokens)}
          onChange={(event) => setTokens(event.target.value)}
        />
      </label>
      <label className="settings__field">
        <span>Cost a day (empty: {allowance(budgets.defaults.costUsd, true)}, from the environment; 0: none)</span>
        <input
          type="number"
          name="daily_cost_budget_usd"
          min={0}
          step={0.01}
          value={cost}
          placeholder={String(budgets.defaults.costUsd)}
          onChange={(event) => setCost(event.target.value)}
        />
        <span className="muted">$</span>
      </label>
      <p className="muted" data-testid="instance-budgets-now">
        Now: {allowance(budgets.limits.tokens, false)}, {allowance(budgets.limits.costUsd, true)}.
      </p>
      <button className="button button--primary" type="submit" disabled={saving || !changed} data-testid="instance-budgets-save">
        Save budgets
      </button>
      {message && <p className={message.error ? "form-error" : "muted"}>{message.text}</p>}
    </form>
  );
}
