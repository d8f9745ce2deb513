import { type SQL, sql } from "drizzle-orm";
import { agents, runs, usageHourly } from "@/db/schema";

export interface UsageTotals {
  calls: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

/** The start of the hour a timestamp falls in, in UTC whatever the session's time zone. */
const HOUR_OF_NOW = sql`date_bin('1 hour', now(), timestamptz '2000-01-01T00:00:00Z')`;

/**
 * One statement that adds model calls' usage to the hour's row of their agent and its model:
 * `{ runId }` for a run's calls, `{ agentId }` for a shadow's answer. The agent's model is read
 * as the call is recorded. Usable as a data-modifying `with` entry of a larger statement.
 */
export function addUsage(source: { runId: string } | { agentId: string }, totals: UsageTotals): SQL {
  const agentId =
    "runId" in source ? sql`(select ${runs.agentId} from ${runs} where ${runs.id} = ${source.runId})` : sql`${source.agentId}`;
  return sql`insert into ${usageHourly} (hour, agent_id, model, room_id, identity, agent_name, calls, input_tokens, output_tokens, cost_usd)
    select ${HOUR_OF_NOW}, ${agents.id}, ${agents.model}, ${agents.roomId}, ${agents.identity}, ${agents.name},
      ${totals.calls}::int, ${totals.inputTokens}::bigint, ${totals.outputTokens}::bigint, ${totals.costUsd}::float8
    from ${agents} where ${agents.id} = ${agentId}
    on conflict (hour, agent_id, model) do update set
      agent_name = excluded.agent_name,
      calls = ${usageHourly.calls} + excluded.calls,
      input_tokens = ${usageHourly.inputTokens} + excluded.input_tokens,
      output_tokens = ${usageHourly.outputTokens} + excluded.output_tokens,
      cost_usd = ${usageHourly.costUsd} + excluded.cost_usd`;
}
