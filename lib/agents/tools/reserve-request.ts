import { and, count, eq, sql } from "drizzle-orm";
import type { Db } from "@/db";
import { type Agent, type Run, events } from "@/db/schema";
import { badRequest } from "@/lib/errors";
import type { ActiveRun } from "../run-context";

export interface RequestReservation {
  target: Agent;
  /** The chain depth the requested run will have. */
  depth: number;
  /** Gives the request back when writing it failed. */
  release: () => void;
}

/**
 * Takes one of the run's requests before it is written, whichever way the agent asks —
 * request_agent or a request shared on the board — so that neither gets round the per-run
 * limit or the chain depth limit. Counted up front so that two calls in one step cannot both
 * pass the limit.
 */
export function reserveRequest(active: ActiveRun, targetPersona: string): RequestReservation {
  const { run, agent, team, settings, state } = active;
  const allowed = settings.max_requests_per_run;
  if (state.requestsMade >= allowed) {
    throw badRequest(
      `Only ${allowed} request${allowed === 1 ? " is" : "s are"} allowed per run, through request_agent or the board; ` +
        `this run has made ${state.requestsMade}.`,
    );
  }
  const target = team.find((member) => member.persona === targetPersona);
  if (!target || target.id === agent.id) {
    const personas = team.filter((member) => member.id !== agent.id).map((member) => member.persona);
    throw badRequest(`Unknown persona "${targetPersona}". Ask one of: ${personas.join(", ")}.`);
  }
  const depth = run.chainDepth + 1;
  if (depth > settings.max_chain_depth) {
    throw badRequest(
      `This request would be link ${depth} of a chain limited to ${settings.max_chain_depth}; finish the work yourself instead.`,
    );
  }
  state.requestsMade += 1;
  let released = false;
  return {
    target,
    depth,
    release: () => {
      if (!released) state.requestsMade -= 1;
      released = true;
    },
  };
}

/**
 * How many requests a run has written so far (an earlier attempt's count towards the
 * allowance too). Counted from the room's events: the board forgets expired entries, the
 * event log does not.
 */
export async function countRequestsMade(db: Db, run: Pick<Run, "id" | "roomId">): Promise<number> {
  const [made] = await db
    .select({ value: count() })
    .from(events)
    .where(
      and(
        eq(events.roomId, run.roomId),
        eq(events.type, "board.posted"),
        sql`${events.payload} -> 'entry' ->> 'runId' = ${run.id}`,
        sql`${events.payload} -> 'entry' ->> 'kind' = 'request'`,
      ),
    );
  return Number(made?.value ?? 0);
}
