// How anyone names a teammate — a participant in the command bar, an agent in a tool's
// argument or in its own words: by name or persona, without regard to case, spaces, dashes or
// underscores ("Scene Painter", "ScenePainter", "scene-painter"). One rule everywhere, so a
// name that works in one place works in all of them.

/** What naming a teammate needs to know of it; `role` counts only where a caller asks for it. */
interface NamedMember {
  id: string;
  name: string;
  persona: string;
  role?: string;
}

/** A name as names are compared: lower case, without spaces, dashes or underscores. */
export function nameKey(text: string): string {
  return text.toLowerCase().replace(/[\s\-_]+/g, "");
}

/** The keys a member answers to: its name and persona (and role); one letter is no name. */
function keysOf(member: NamedMember, withRole: boolean): string[] {
  const names = [member.name, member.persona, ...(withRole && member.role ? [member.role] : [])];
  return [...new Set(names.map(nameKey).filter((key) => key.length > 1))];
}

/**
 * The teammate `text` names, the whole of it: its id, or its name or persona compared as
 * `nameKey` compares them (a leading `@` is allowed). Null when it names nobody in `team`.
 */
export function findTeammate<T extends NamedMember>(team: readonly T[], text: string): T | null {
  const wanted = text.trim().replace(/^@/, "");
  const key = nameKey(wanted);
  if (!key) return null;
  return team.find((member) => member.id === wanted) ?? team.find((member) => keysOf(member, false).includes(key)) ?? null;
}

/** A character that continues a word: a name followed by one does not end there. */
const WORD = /[\p{L}\p{N}_-]/u;

/**
 * The teammate named at the very start of `text` and where its name ends in `text`: the
 * longest name wins ("Scene Painter" over a "Scene"), and a name must end where a word ends
 * ("Songwriters" names no Songwriter). With `withRole`, a role names its member too.
 */
export function teammateAt<T extends NamedMember>(
  text: string,
  team: readonly T[],
  options: { withRole?: boolean } = {},
): { member: T; end: number } | null {
  const candidates = team.flatMap((member) => keysOf(member, options.withRole ?? false).map((key) => ({ member, key })));
  const longest = Math.max(0, ...candidates.map((candidate) => candidate.key.length));
  // Each compacted character remembers where it ended in `text`; no name is longer than `longest`.
  let compacted = "";
  const ends: number[] = [];
  for (let index = 0; index < text.length && compacted.length < longest; index++) {
    const piece = nameKey(text[index]!);
    if (!piece) continue;
    compacted += piece;
    for (let count = 0; count < piece.length; count++) ends.push(index + 1);
  }
  let best: { member: T; end: number; length: number } | null = null;
  for (const { member, key } of candidates) {
    if (!compacted.startsWith(key)) continue;
    const end = ends[key.length - 1]!;
    if (end < text.length && WORD.test(text[end]!)) continue;
    if (!best || key.length > best.length) best = { member, end, length: key.length };
  }
  return best && { member: best.member, end: best.end };
}
