import { and, desc, eq, inArray, or } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import type { Agent, Run } from "@/db/schema";
import { events } from "@/db/schema";
import type { ActiveRun } from "@/lib/agents/run-context";
import { badRequest } from "@/lib/errors";
import { eventFromRow } from "@/lib/events/event-row";
import type { LimitReachedPayload } from "@/lib/protocol";
import { ASKING_EVENT_TYPES, type Ask, asksIn } from "@/lib/protocol/asks";

/** How many of the workflow's latest asks are compared: enough for any back-and-forth worth stopping. */
const RECENT_ASKS = 200;
/** Two asks this alike (shared words over all words) say the same thing. */
const SAME_ASK = 0.8;

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

/** Whether `ask` went to `agent`, by its id or (a request) by its persona. */
function asked(ask: Ask, agent: Agent): boolean {
  return "id" in ask.to ? ask.to.id === agent.id : ask.to.persona === agent.persona;
}

/** Whether an ask went between the two agents, either way. */
function between(ask: Ask, one: Agent, other: Agent): boolean {
  return (ask.from === one.id && asked(ask, other)) || (ask.from === other.id && asked(ask, one));
}

/**
 * An ask that would go round in circles: with whom, and how many times it would have been said
 * (`same`), or how many asks back and forth it would make, each answering the one before by
 * asking back (`back-and-forth`), whatever their words.
 */
interface RepeatedExchange {
  other: Agent;
  repeats: number;
  allowed: number;
  kind: "same" | "back-and-forth";
}

/**
 * How many asks between the two, the new one included, go back and forth: the latest ones, each
 * the other way from the one before it (`asks` newest first). Asks that answer each ask by
 * asking back go round in circles however they are worded.
 */
function backAndForth(asks: Ask[], asker: Agent, other: Agent): number {
  let turns = 1;
  let expected: string = other.id;
  for (const ask of asks) {
    if (!between(ask, asker, other)) continue;
    if (ask.from !== expected) break;
    turns += 1;
    expected = expected === other.id ? asker.id : other.id;
  }
  return turns;
}

/**
 * The first of `targets` with whom `asker`'s ask of `text` would be the room's
 * `repeated_exchange_limit`-th saying much the same, either way, or the
 * `repeated_exchange_limit`-th ask of a back-and-forth between the two (each asking the other
 * back), in `run`'s workflow; null when the ask is no such repeat. Every kind of ask the room's events record counts (see
 * `ASKING_EVENT_TYPES`), so a new way of asking is compared as soon as it is counted.
 */
async function findRepeatedExchange(
  db: DbOrTx,
  run: Pick<Run, "roomId" | "correlationId">,
  asker: Agent,
  targets: Agent[],
  text: string,
  allowed: number,
): Promise<RepeatedExchange | null> {
  const others = targets.filter((target) => target.id !== asker.id);
  if (others.length === 0) return null;
  const rows = await db
    .select()
    .from(events)
    .where(
      and(
        eq(events.roomId, run.roomId),
        eq(events.correlationId, run.correlationId),
        inArray(events.type, ASKING_EVENT_TYPES),
        or(
          eq(events.agent, asker.id),
          inArray(
            events.agent,
            others.map((other) => other.id),
          ),
        ),
      ),
    )
    .orderBy(desc(events.seq))
    .limit(RECENT_ASKS);
  const asks = rows.flatMap((row) => asksIn(eventFromRow(row)));
  const words = wordsOf(text);
  for (const other of others) {
    const repeats = asks.filter((ask) => between(ask, asker, other) && saysTheSame(wordsOf(ask.text), words)).length + 1;
    if (repeats >= allowed) return { other, repeats, allowed, kind: "same" };
    const turns = backAndForth(asks, asker, other);
    if (turns >= allowed) return { other, repeats: turns, allowed, kind: "back-and-forth" };
  }
  return null;
}

/** What a refused ask's `limit.reached` says, `outcome` being what became of the ask and its run. */
function repeatedExchangeLimit(runId: string, asker: Agent, repeated: RepeatedExchange, outcome: string): LimitReachedPayload {
  const what =
    repeated.kind === "same"
      ? `have asked each other much the same thing ${repeated.repeats} times in this workflow`
      : `have asked each other back and forth ${repeated.repeats} times in this workflow, each answering by asking back`;
  const message = `${asker.name} and ${repeated.other.name} ${what}, which goes round in circles: ${outcome}`;
  return {
    limit: "repeated_exchange",
    runId,
    agentId: asker.id,
    message,
    used: repeated.repeats,
    allowed: repeated.allowed,
    resetsAt: null,
  };
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
  const repeated = await findRepeatedExchange(active.database.db, run, agent, targets, text, settings.repeated_exchange_limit);
  if (!repeated) return;
  const reached = repeatedExchangeLimit(run.id, agent, repeated, "this ask was not sent and the run stops here.");
  active.state.stop ??= reached;
  throw badRequest(reached.message);
}

/**
 * The `limit.reached` that stops a dialogue `asker`'s finished `run` would open with `addressee`
 * on `topic` (what its words asked), when that dialogue would be the room's
 * `repeated_exchange_limit`-th saying much the same between the two in the run's workflow; null
 * when the dialogue may open.
 */
export async function repeatedDialogue(
  db: DbOrTx,
  run: Pick<Run, "id" | "roomId" | "correlationId">,
  asker: Agent,
  addressee: Agent,
  topic: string,
  allowed: number,
): Promise<LimitReachedPayload | null> {
  const repeated = await findRepeatedExchange(db, run, asker, [addressee], topic, allowed);
  return repeated && repeatedExchangeLimit(run.id, asker, repeated, "no dialogue was opened.");
}
