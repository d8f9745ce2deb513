// Who an agent's message is addressed to, decided by rules a person can predict: structured
// signals first (the caller's), then `@name`, a sentence opening with a name, a question that
// names a teammate, and a concern in a review that does not approve. Code and links never count.
import { teammateAt } from "@/lib/agents/find-teammate";

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

type AddressReason = "mention" | "vocative" | "question" | "concern";

export interface Addressed {
  addressee: DialogueMember;
  reason: AddressReason;
  /** The sentence that addresses them. */
  sentence: string;
}

/** The concern phrases a room starts with (its `concern_phrases` setting): the seed's seven. */
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

/** Whether a name may start at `index` of `text`: not inside a word (nor, unless `mention`, after an `@` or a dash). */
function startsWord(text: string, index: number, mention = false): boolean {
  return index === 0 || !(mention ? /[\p{L}\p{N}_]/u : /[\p{L}\p{N}_@-]/u).test(text[index - 1]!);
}

/** The members `text` names anywhere as whole words (name, persona or role), in the order named. */
function membersNamed(text: string, members: DialogueMember[]): DialogueMember[] {
  const named = new Set<DialogueMember>();
  for (let index = 0; index < text.length; index++) {
    if (!startsWord(text, index) || !/[\p{L}\p{N}]/u.test(text[index]!)) continue;
    const found = teammateAt(text.slice(index), members, { withRole: true });
    if (found) named.add(found.member);
  }
  return [...named];
}

/** The member a sentence mentions with `@name` or `@persona` (a role is no mention). */
function mentioned(sentence: string, members: DialogueMember[]): DialogueMember | null {
  for (let index = 0; index < sentence.length; index++) {
    if (sentence[index] !== "@" || !startsWord(sentence, index, true)) continue;
    const found = teammateAt(sentence.slice(index + 1), members);
    if (found) return found.member;
  }
  return null;
}

/** The member a sentence opens by addressing: `Name,` or `Name:`, after a "hey", "hi" or "the". */
function addressedAtStart(sentence: string, members: DialogueMember[]): DialogueMember | null {
  const greeting = sentence.match(/^(?:(?:hey|hi)\s+)?/iu)![0].length;
  const article = sentence.slice(greeting).match(/^(?:the\s+)?/iu)![0].length;
  for (const start of new Set([greeting + article, greeting])) {
    const found = teammateAt(sentence.slice(start), members, { withRole: true });
    if (found && /^\s*[,:]/.test(sentence.slice(start + found.end))) return found.member;
  }
  return null;
}

/**
 * Whom a message addresses, or null: `@name`/`@persona` at a word boundary; a sentence
 * opening with `Name,` or `Name:`; a sentence ending in `?` that names another agent's name,
 * persona or role; or, in a review that does not approve, a question that names no one or a
 * concern phrase (addressed to the reviewed work's author). Names are read as everywhere else (`teammateAt`): without regard to
 * case, spaces or dashes. An agent never addresses itself.
 */
export function detectAddressee(text: string, context: DetectionContext): Addressed | null {
  const others = context.team.filter((member) => member.id !== context.speaker.id);
  const prose = proseOf(text);
  const sentences = sentencesOf(prose);

  for (const sentence of sentences) {
    const member = mentioned(sentence, others);
    if (member) return { addressee: member, reason: "mention", sentence };
  }
  for (const sentence of sentences) {
    const member = addressedAtStart(sentence, others);
    if (member) return { addressee: member, reason: "vocative", sentence };
  }
  for (const sentence of sentences) {
    if (!sentence.endsWith("?")) continue;
    const named = membersNamed(sentence, others);
    if (named.length === 1) return { addressee: named[0]!, reason: "question", sentence };
  }
  if (context.review && !context.review.approves && context.review.authorId !== context.speaker.id) {
    const author = others.find((member) => member.id === context.review!.authorId);
    // A question that names no one, in a review that asks for changes, is put to the reviewed work's author.
    const question = sentences.find((sentence) => sentence.endsWith("?") && membersNamed(sentence, others).length === 0);
    if (author && question) return { addressee: author, reason: "question", sentence: question };
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

const SATISFIED = /\b(thanks|thank you|that clarifies|clarifies|makes sense|got it|all clear|agreed)\b/i;
const DOUBT = /\b(still|but|not)\b/i;

/**
 * Whether an asker without tools is satisfied: it thanks, agrees, says the answer clarifies or
 * makes sense, asks nothing more (no `?` outside code) and says no "still", "but" or "not" within a
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
