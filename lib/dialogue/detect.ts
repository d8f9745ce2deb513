// Who an agent's message is addressed to, decided by rules a person can predict: structured
// signals first (the caller's), then `@name`, a sentence opening with a name, a question that
// names a teammate, and a concern in a review that does not approve. Code and links never count.

export interface DialogueMember {
  id: string;
  name: string;
  persona: string;
  role: string;
}

export interface DetectionContext {
  speaker: DialogueMember;
  team: DialogueMember[];
  /** Set when the message is a review: its verdict, and whose work it reviews. */
  review?: { approves: boolean; authorId: string };
  /** Phrases that voice a concern (the room's setting). */
  concernPhrases: readonly string[];
}

export type AddressReason = "mention" | "vocative" | "question" | "concern";

export interface Addressed {
  addressee: DialogueMember;
  reason: AddressReason;
  /** The sentence that addresses them. */
  sentence: string;
}

export const DEFAULT_CONCERN_PHRASES = [
  "concern",
  "unclear",
  "not sure",
  "could you",
  "can you explain",
  "why did you",
  "question about",
] as const;

/** The message with code blocks, inline code and links taken out: what they say is not said to anyone. */
export function proseOf(text: string): string {
  return text
    .replace(/```[\s\S]*?(```|$)/g, " ")
    .replace(/`[^`\n]*`/g, " ")
    .replace(/\bhttps?:\/\/\S+/gi, " ")
    .replace(/\bwww\.\S+/gi, " ");
}

function sentencesOf(prose: string): string[] {
  return prose
    .split(/(?<=[.!?])\s+|\n+/)
    .map((sentence) => sentence.trim())
    .filter(Boolean);
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The ways a member can be named: name, persona (with spaces for dashes), role. */
function namesOf(member: DialogueMember, withRole: boolean): string[] {
  const names = [member.name, member.persona, member.persona.replace(/-/g, " ")];
  if (withRole) names.push(member.role);
  return [...new Set(names.filter((name) => name.trim().length > 1))];
}

function wordPattern(name: string): RegExp {
  return new RegExp(`(^|[^\\p{L}\\p{N}_@-])${escape(name)}(?![\\p{L}\\p{N}_-])`, "iu");
}

/** Whether `text` names `member` as a whole word. */
export function names(text: string, member: DialogueMember, withRole = true): boolean {
  return namesOf(member, withRole).some((name) => wordPattern(name).test(text));
}

/**
 * Whom a message addresses, or null: `@name`/`@persona` at a word boundary; a sentence
 * opening with `Name,` or `Name:`; a sentence ending in `?` that names another agent's name,
 * persona or role; or a concern phrase in a review that does not approve (addressed to the
 * reviewed work's author). An agent never addresses itself.
 */
export function detectAddressee(text: string, context: DetectionContext): Addressed | null {
  const others = context.team.filter((member) => member.id !== context.speaker.id);
  const prose = proseOf(text);
  const sentences = sentencesOf(prose);

  for (const sentence of sentences) {
    for (const member of others) {
      const mentioned = namesOf(member, false).some((name) =>
        new RegExp(`(^|[^\\p{L}\\p{N}_])@${escape(name.replace(/\s+/g, ""))}(?![\\p{L}\\p{N}_-])|(^|[^\\p{L}\\p{N}_])@${escape(name)}(?![\\p{L}\\p{N}_-])`, "iu").test(sentence),
      );
      if (mentioned) return { addressee: member, reason: "mention", sentence };
    }
  }
  for (const sentence of sentences) {
    for (const member of others) {
      const opens = namesOf(member, true).some((name) => new RegExp(`^(?:hey\\s+|hi\\s+)?(?:the\\s+)?${escape(name)}\\s*[,:]`, "iu").test(sentence));
      if (opens) return { addressee: member, reason: "vocative", sentence };
    }
  }
  for (const sentence of sentences) {
    if (!sentence.endsWith("?")) continue;
    const named = others.filter((member) => names(sentence, member));
    if (named.length === 1) return { addressee: named[0]!, reason: "question", sentence };
  }
  if (context.review && !context.review.approves && context.review.authorId !== context.speaker.id) {
    const author = others.find((member) => member.id === context.review!.authorId);
    const lower = prose.toLowerCase();
    const concern = author && context.concernPhrases.find((phrase) => lower.includes(phrase.toLowerCase()));
    if (author && concern) {
      const sentence = sentences.find((candidate) => candidate.toLowerCase().includes(concern.toLowerCase())) ?? prose.trim();
      return { addressee: author, reason: "concern", sentence };
    }
  }
  return null;
}

/** The verdict line a model without tools must write to approve: never a substring of prose. */
export function textVerdict(text: string): "approve" | "changes" | null {
  const line = proseOf(text)
    .split("\n")
    .map((candidate) => candidate.trim())
    .find((candidate) => /^VERDICT:\s*(APPROVE|CHANGES)\s*$/i.test(candidate));
  if (!line) return null;
  return /APPROVE/i.test(line) ? "approve" : "changes";
}

const SATISFIED = /\b(thanks|thank you|that clarifies|clarifies|makes sense|got it|all clear)\b/i;
const DOUBT = /\b(still|but|not)\b/i;

/**
 * Whether an asker without tools is satisfied: it thanks, says the answer clarifies or makes
 * sense, asks nothing more (no `?` outside code) and says no "still", "but" or "not" within a
 * few words of it.
 */
export function textSatisfied(text: string): boolean {
  const prose = proseOf(text);
  if (prose.includes("?")) return false;
  const match = prose.match(SATISFIED);
  if (!match) return false;
  const at = match.index!;
  const around = prose.slice(Math.max(0, at - 40), at + match[0].length + 40);
  return !DOUBT.test(around);
}
