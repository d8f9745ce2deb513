import { formatCost } from "@/components/agents/agent-status";

/**
 * A dialogue message's or a whole dialogue's figures as its thread shows them: "12.3 s · $0.0234",
 * or "cost unknown" for a model without a known price (never a false $0).
 */
export function turnFigures(figures: { durationMs: number; costUsd: number; costKnown: boolean }): string {
  return `${(figures.durationMs / 1000).toFixed(1)} s · ${formatCost(figures.costUsd, figures)}`;
}
