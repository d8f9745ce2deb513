/** Size limits on what people and agents may write. Shared so the browser can enforce them too. */
export const LIMITS = {
  roomTitle: 120,
  displayName: 40,
  noteText: 2000,
  /** A board entry's text: a plan, a summary, a request's ask, a reaction. */
  boardText: 600,
  /** A finding an agent posts for the team. */
  findingText: 1000,
  /** One insight in an agent's knowledge vault. */
  insightText: 300,
  /**
   * What a participant types in the command bar (`@Name …`, `/focus Name`): the whole line, the name
   * included, spaces at either end aside. The bar stops typing there and the server counts the same.
   */
  commandText: 2000,
  /** An agent's system prompt, as an admin sets it. */
  systemPrompt: 8000,
  edgeLabel: 80,
  nodeKind: 32,
  coordinate: 1_000_000,
  nodeSize: 4000,
  /** Notes one "tidy" may move at once (its positions must fit in one request body). */
  tidyNodes: 500,
  requestBodyBytes: 64 * 1024,
  idempotencyKey: 128,
} as const;
