/**
 * Whose turn the scheduler gives next, decided the same way by the scheduler and by the room's
 * page (which shows "next: …"). Pure and safe in the browser: it reads only what it is given.
 */

/** A member of the team as the ranking needs it. */
interface TurnTaker {
  id: string;
  persona: string;
  position: number;
}

/**
 * The agent that has waited longest since its last run (`lastRunAt`: each agent's latest run's
 * creation time in ms; one that never ran first). The pool is the personas of `turnOrder` (the
 * template's order) when the team has any of them, else the whole team. Ties go to the turn
 * order, then to the agent's position, then to its id — never to chance, so the page names the
 * agent the scheduler will start. Null for an empty team.
 */
export function whoseTurn<A extends TurnTaker>(
  team: readonly A[],
  turnOrder: readonly string[],
  lastRunAt: Readonly<Record<string, number>>,
): A | null {
  const inOrder = team.filter((agent) => turnOrder.includes(agent.persona));
  const pool = inOrder.length ? inOrder : team;
  const waited = (agent: A) => lastRunAt[agent.id] ?? -1;
  const rank = (agent: A) => (turnOrder.includes(agent.persona) ? turnOrder.indexOf(agent.persona) : turnOrder.length + agent.position);
  const [first] = [...pool].sort((a, b) => waited(a) - waited(b) || rank(a) - rank(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return first ?? null;
}
