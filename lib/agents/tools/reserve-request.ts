import { and, eq, sql } from "drizzle-orm";
import type { Db } from "@/db";
import { type Agent, type Run, events } from "@/db/schema";
import { badRequest } from "@/lib/errors";
import { findTeammate } from "../find-teammate";
import type { ActiveRun } from "../run-context";

/** A request for work (request_agent, the board), or for an answer (request_help). */
export type RequestKind = "work" | "help";

export interface RequestReservation {
  target: Agent;
  /** The chain depth the requested run will have. */
  depth: number;
  /** Gives the request back when writing it failed. */
  release: () => void;
}

/**
 * Takes one of the run's requests before it is written (after checking whom it asks, so a
 * request to nobody never reads as a spent allowance), whichever way the agent asks —
 * request_agent or a request shared on the board — so that neither gets round the per-run
 * limit or the chain depth limit. Counted up front so that two calls in one step cannot both
 * pass the limit.
 */
export function reserveRequest(active: ActiveRun, targetPersona: string, kind: RequestKind = "work"): RequestReservation {
  const { run, agent, team, settings, state } = active;
  const counter = kind === "help" ? "helpRequested" : "requestsMade";
  const allowed = kind === "help" ? settings.max_help_per_run : settings.max_requests_per_run;
  const others = team.filter((member) => member.id !== agent.id);
  const listed = others.map((member) => `${member.persona} (${member.name})`).join(", ");
  const target = findTeammate(team, targetPersona);
  if (target?.id === agent.id) throw badRequest(`You cannot ask yourself. Ask one of: ${listed}.`);
  if (!target) throw badRequest(`Unknown persona "${targetPersona}". Ask one of: ${listed}.`);
  if (!modelAvailable(active, target)) {
    throw badRequest(`${target.name} cannot work right now (its model is not configured). Ask one of: ${listed}.`);
  }
  if (state[counter] >= allowed) {
    throw badRequest(
      kind === "help"
        ? `Only ${allowed} help request${allowed === 1 ? " is" : "s are"} allowed per run; this run has made ${state[counter]}.`
        : `Only ${allowed} request${allowed === 1 ? " is" : "s are"} allowed per run, through request_agent or the board; ` +
            `this run has made ${state[counter]}.`,
    );
  }
  const depth = run.chainDepth + 1;
  if (depth > settings.max_chain_depth) {
    throw badRequest(
      `This request would be link ${depth} of a chain limited to ${settings.max_chain_depth}; finish the work yourself instead.`,
    );
  }
  state[counter] += 1;
  let released = false;
  return {
    target,
    depth,
    release: () => {
      if (!released) state[counter] -= 1;
      released = true;
    },
  };
}

/** Whether a teammate's model can be used here: a request to one that cannot would only fail. */
function modelAvailable(active: ActiveRun, target: Agent): boolean {
  try {
    active.resolveModel(target.model, target.modelOptions);
    return true;
  } catch {
    return false;
  }
}

/**
 * How many requests a run has written so far (an earlier attempt's count towards the
 * allowance too). Counted from the room's events: the board forgets expired entries, the
 * event log does not.
 */
export async function countRequestsMade(db: Db, run: Pick<Run, "id" | "roomId">): Promise<{ work: number; help: number }> {
  const [made] = await db
    .select({
      work: sql<number>`count(*) filter (where ${events.payload} -> 'entry' -> 'content' ->> 'help' is null)`,
      help: sql<number>`count(*) filter (where ${events.payload} -> 'entry' -> 'content' ->> 'help' = 'true')`,
    })
    .from(events)
    .where(
      and(
        eq(events.roomId, run.roomId),
        eq(events.type, "board.posted"),
        sql`${events.payload} -> 'entry' ->> 'runId' = ${run.id}`,
        sql`${events.payload} -> 'entry' ->> 'kind' = 'request'`,
      ),
    );
  return { work: Number(made?.work ?? 0), help: Number(made?.help ?? 0) };
}
