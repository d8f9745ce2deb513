import { and, desc, eq, inArray, or } from "drizzle-orm";
import type { Agent } from "@/db/schema";
import { events } from "@/db/schema";
import type { ActiveRun } from "@/lib/agents/run-context";
import { badRequest } from "@/lib/errors";
import { eventFromRow } from "@/lib/events/event-row";
import type { StoredEvent } from "@/lib/protocol";

/** How many of the workflow's latest asks are compared: enough for any back-and-forth worth stopping. */
const RECENT_ASKS = 200;
/** Two asks this alike (shared words over all words) say the same thing. */
const SAME_ASK = 0.8;

/** The ways one agent asks another, as the room's events record them. */
const ASK_TYPES = ["board.posted", "dialogue.opened", "broadcast.asked"] as const;

interface Ask {
  from: string;
  /** Agent ids, or personas (a request names its target's persona). */
  to: string[];
  text: string;
}

/** Who asked whom what, from one of the room's events; null for events that ask nobody. */
function askOf(event: StoredEvent): Ask | null {
  switch (event.type) {
    case "board.posted": {
      const { entry } = event.payload;
      if (entry.kind !== "request" || !entry.agentId || !entry.targetPersona) return null;
      return { from: entry.agentId, to: [entry.targetPersona], text: String(entry.content.ask ?? "") };
    }
    case "dialogue.opened": {
      const { dialogue } = event.payload;
      return { from: dialogue.askerAgentId, to: [dialogue.addresseeAgentId], text: dialogue.topic };
    }
    case "broadcast.asked": {
      const { broadcast } = event.payload;
      return broadcast.mode === "human" ? null : { from: broadcast.agentId, to: broadcast.targetAgentIds, text: broadcast.question };
    }
    default:
      return null;
  }
}

/** The words an ask is made of, for comparing two asks whatever their case, punctuation and small words. */
function wordsOf(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? []);
}

function saysTheSame(a: Set<string>, b: Set<string>): boolean {
  if (a.size === 0 || b.size === 0) return a.size === b.size;
  let shared = 0;
  for (const word of a) if (b.has(word)) shared += 1;
  return shared / (a.size + b.size - shared) >= SAME_ASK;
}

/** Whether an ask went between the two agents, either way. */
function between(ask: Ask, one: Agent, other: Agent): boolean {
  const names = (agent: Agent) => [agent.id, agent.persona];
  return (
    (ask.from === one.id && ask.to.some((to) => names(other).includes(to))) || (ask.from === other.id && ask.to.some((to) => names(one).includes(to)))
  );
}

/**
 * Refuses an ask from the running agent to `targets` (a request, a help request, a question to a
 * teammate or to the others) that would be the room's `repeated_exchange_limit`-th saying much
 * the same between the agent and one of them, either way, in the run's workflow: a back-and-forth
 * in which each answer sets off the next ask, and which keeps repeating itself. (Agents started
 * afresh, by the scheduler or a person, are other workflows: what they ask is theirs to repeat.)
 * The run is marked to stop once its step is saved, and its `limit.reached` event says why; the
 * refusal is the tool's error, which the model reads.
 */
export async function refuseRepeatedExchange(active: ActiveRun, targets: Agent[], text: string): Promise<void> {
  const { run, agent, settings } = active;
  const others = targets.filter((target) => target.id !== agent.id);
  if (others.length === 0) return;
  const rows = await active.database.db
    .select()
    .from(events)
    .where(
      and(
        eq(events.roomId, run.roomId),
        eq(events.correlationId, run.correlationId),
        inArray(events.type, [...ASK_TYPES]),
        or(eq(events.agent, agent.id), inArray(events.agent, others.map((other) => other.id))),
      ),
    )
    .orderBy(desc(events.seq))
    .limit(RECENT_ASKS);
  const asks = rows.map((row) => askOf(eventFromRow(row))).filter((ask): ask is Ask => ask !== null);
  const words = wordsOf(text);
  const limit = settings.repeated_exchange_limit;
  for (const other of others) {
    const repeats = asks.filter((ask) => between(ask, agent, other) && saysTheSame(wordsOf(ask.text), words)).length + 1;
    if (repeats < limit) continue;
    const message =
      `${agent.name} and ${other.name} have asked each other much the same thing ${repeats} times in this workflow, ` +
      "which goes round in circles: this ask was not sent and the run stops here.";
    active.state.stop ??= { limit: "repeated_exchange", runId: run.id, agentId: agent.id, message, used: repeats, allowed: limit, resetsAt: null };
    throw badRequest(message);
  }
}
