// What a room's work is about, as the scripted personas read it from the task: a verse may wander
// through its mood's imagery, but every piece names the task's own subject.
import type { Mood } from "./moods";

export interface Topic {
  /** What the task is about, in its own words: "rain on a city window at night". */
  phrase: string;
  /** The things the phrase names, to write with as a mood's images: "rain", "a city window", "night". */
  images: string[];
  /** Its content words: a piece that names one of them is about the task (rain, city, window, night). */
  words: string[];
}

/** Where a subject phrase moves on to another thing: "rain on a city window at night" → rain | a city window | night. */
const JOINS = /\s+(?:on|at|in|by|under|over|across|through|near|beside|behind|from|into|with|of|and|for|to|after|before|during)\s+/i;

/**
 * Where the task goes on to ask for something else: "… at night and paint the scene it
 * describes". A verb and its object after "and" begin another ask; "rain and the wind" does not.
 */
const NEXT_ASK = /\s+and\s+(?:then\s+)?[a-z]+\s+(?:the|a|an|it|them|its|their|some|one|this|that|what)\b/i;

const LONGEST_PHRASE = 80;

const NOT_CONTENT = new Set([
  "about",
  "with",
  "from",
  "into",
  "your",
  "their",
  "this",
  "that",
  "them",
  "those",
  "these",
  "over",
  "under",
  "what",
  "when",
  "where",
]);

/**
 * What a text asks the work to be about: the phrase after its first "about" (or "of"), up to
 * the end of the sentence or the next thing it asks for, cut between words. Null when it says
 * nothing of the kind ("Tidy the canvas").
 */
export function subjectOf(text: string): string | null {
  const about = text.match(/\b(?:about|of)\s+([^.!?\n]{3,400})/i);
  if (!about) return null;
  let phrase = about[1]!.split(NEXT_ASK)[0]!.replace(/\s+/g, " ").trim();
  if (phrase.length > LONGEST_PHRASE) {
    const cut = phrase.slice(0, LONGEST_PHRASE);
    phrase = cut.slice(0, Math.max(cut.lastIndexOf(" "), LONGEST_PHRASE / 2)).replace(/[\s,;:-]+$/, "");
  }
  return phrase.length >= 3 ? phrase : null;
}

/** Where a command or a room's task begins with what to do rather than with its subject: "please write me …". */
const ASKING =
  /^(?:(?:please|could you|can you|would you|now|then|and|also)\s+)*(?:(?:write|paint|draw|sketch|make|try|compose|tell|create|give|sing|imagine|describe|add|offer|do|turn|spin|weave|invent|start|show|find|put|bring|include)\s+)?(?:(?:me|us|it into|them into)\s+)?(?:(?:something|some|one|another|a few|more)\s+(?:on\s+|with\s+)?)?/i;

/** Subjects that point back at something else rather than naming a subject of their own. */
const POINTING = /^(?:it|this|that|them|these|those|there|here|the same|again|faster|slower|shorter|longer|louder|softer|more|less)\b/i;

/**
 * What a room's task or a participant's command is about, when it does not say "about" or "of":
 * its first sentence without the asking words ("try a sea shanty" → "a sea shanty", "A lullaby
 * for a lighthouse keeper" → "a lullaby for a lighthouse keeper"). Null for one that only points
 * back at the work ("make it rhyme", "more blue").
 */
export function taskSubjectOf(text: string): string | null {
  const about = subjectOf(text);
  if (about) return about;
  const sentence = text
    .replace(/^@\S+\s+/, "")
    .split(/[.!?\n]/)[0]!
    .replace(/\s+/g, " ")
    .trim();
  const rest = sentence.replace(ASKING, "").split(NEXT_ASK)[0]!.replace(/["“”]/g, "").trim();
  if (rest.length < 3 || POINTING.test(rest) || !/[a-z]{3}/i.test(rest)) return null;
  const phrase = rest.length > LONGEST_PHRASE ? rest.slice(0, rest.slice(0, LONGEST_PHRASE).lastIndexOf(" ")) : rest;
  return phrase.charAt(0).toLowerCase() + phrase.slice(1);
}

/** The last word of an image, by which a text is said to show it ("the last bus" → bus). */
function headOf(image: string): string {
  return image.split(" ").pop()!.toLowerCase();
}

/** The images and content words of a subject phrase. */
export function topicOf(phrase: string): Topic {
  const images = phrase
    .split(JOINS)
    .map((piece) => piece.replace(/[,;:]+$/, "").trim())
    .filter((piece) => /[a-z]{3}/i.test(piece))
    .slice(0, 4);
  const words = phrase
    .toLowerCase()
    .split(/[^a-z']+/)
    .map((word) => word.replace(/'s$|'/g, ""))
    .filter((word) => word.length > 3 && !NOT_CONTENT.has(word));
  return { phrase, images, words: [...new Set(words)] };
}

function formsOf(word: string): string {
  return word.endsWith("y") ? `${word.slice(0, -1)}(?:y|ies)` : `${word}(?:s|es|y|ing|ed)?`;
}

/** Whether `text` names what the topic is about (rain, rainy, cities…); any text does when there is no topic. */
export function namesTopic(text: string, topic: Topic | null): boolean {
  if (!topic || topic.words.length === 0) return true;
  return new RegExp(`\\b(?:${topic.words.map(formsOf).join("|")})\\b`, "i").test(text);
}

/**
 * A mood that writes about the topic: the topic's own images first, then the mood's other
 * images (those it names in other words: the mood's "window" gives way to "a city window").
 */
export function moodAbout(mood: Mood, topic: Topic | null): Mood {
  if (!topic || topic.images.length === 0) return mood;
  const heads = new Set(topic.images.map(headOf));
  return { ...mood, images: [...topic.images, ...mood.images.filter((image) => !heads.has(headOf(image)))] };
}
