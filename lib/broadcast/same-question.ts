import { stemmer } from "stemmer";

// Whether two questions to the people in a room ask the same thing, so that an answer to one can be
// given for the other (docs/behaviour/asking-others.md). Both reduce to a key, and the same key means the
// same question: the key is stored with each question, so finding an earlier answer is one indexed
// lookup, on any instance. The rule is deterministic and works offline; it leans towards asking again,
// because a wrong earlier answer misleads an agent while a repeated question only costs a person a moment.
// Its precision and recall are measured on a labelled set of question pairs (same-question.test.ts).

/** Bumped whenever the rule changes: keys stored under another version never match, so nothing is reused wrongly. */
const KEY_VERSION = 1;

/** Words that frame a question rather than say what it asks: articles, auxiliaries, pronouns, politeness, "would you like". */
const FRAMING = new Set(
  (
    "a an the should would could can may might must shall will do does did is are was were be been being am have has had " +
    "i we you it they he she me us my our your its their this that these those there here which what " +
    "of for in on at as to from with about into onto " +
    "or and but so then also just really actually exactly specifically please ok okay fine alright allowed possible " +
    "want prefer like wish think need use let all each every any some still"
  ).split(" "),
);

/** Words that only make sense as answer choices: they add nothing to what a question asks. */
const CHOICE_WORDS = new Set(["yes", "no", "something", "else", "other", "maybe", "either", "neither", "both"]);

/** Spellings and words that say the same thing, reduced to one. */
const SAME_WORD: Record<string, string> = {
  colour: "color",
  colours: "colors",
  coloured: "colored",
  harbour: "harbor",
  harbours: "harbors",
  favourite: "favorite",
  flavour: "flavor",
  honour: "honor",
  humour: "humor",
  neighbour: "neighbor",
  behaviour: "behavior",
  grey: "gray",
  centre: "center",
  theatre: "theater",
  organise: "organize",
  realise: "realize",
  prioritise: "prioritize",
  summarise: "summarize",
  finalise: "finalize",
  start: "begin",
  starts: "begin",
  started: "begin",
  starting: "begin",
  beginning: "begin",
  delete: "remove",
  deleted: "remove",
  pick: "choose",
  select: "choose",
};

/** Leading words that only introduce a question ("Quick question: …", "To be specific: …"). */
const PREAMBLE =
  /^(?:quick question|one more question|one more thing|to be specific|to be clear|just to check|just checking|question|sorry|also|so|hi|hello|hey|ok|okay)\s*[:,.!—–-]*\s+/;

/** Phrases that make word order matter: "louder than", "from the board to the canvas", "before the refactor". */
const ORDERED = /\b(?:than|before|after|instead|rather|from\b.*\bto)\b/;

const CONTRACTIONS: [RegExp, string][] = [
  [/\bcan't\b/g, "can not"],
  [/\bwon't\b/g, "will not"],
  [/n't\b/g, " not"],
  [/'re\b/g, " are"],
  [/'ll\b/g, " will"],
  [/'ve\b/g, " have"],
  [/'d\b/g, " would"],
  [/\blet's\b/g, "let us"],
  [/\b(what|where|who|how|when|why|that|there|it|he|she)'s\b/g, "$1 is"],
  [/'s\b/g, ""],
];

/** The question's text with case, typography, contractions and a leading preamble made uniform. */
export function normaliseQuestion(question: string): string {
  let text = question
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[‘’`´]/g, "'");
  for (const [pattern, replacement] of CONTRACTIONS) text = text.replace(pattern, replacement);
  text = text
    .replace(/["“”«»]/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  for (let before = ""; before !== text; ) {
    before = text;
    text = text.replace(PREAMBLE, "");
  }
  // "… or not?" asks the same as the question without it.
  text = text.replace(/,?\s*or not\s*[?!.]*$/, "");
  return text
    .replace(/[^\p{L}\p{N}']+/gu, " ")
    .replace(/'/g, "")
    .trim();
}

/** One word as the key compares it: its usual spelling, adverbs read as their adjective, stemmed. */
function canonicalWord(word: string): string {
  const same = SAME_WORD[word] ?? word;
  const adjective =
    same.endsWith("ily") && same.length > 5 ? `${same.slice(0, -3)}y` : same.endsWith("ly") && same.length > 5 ? same.slice(0, -2) : same;
  const stem = stemmer(adjective);
  return SAME_WORD[stem] ?? stem;
}

function contentWords(text: string, skip: Set<string>): string[] {
  return text
    .split(" ")
    .filter((word) => word && !FRAMING.has(word) && !skip.has(word))
    .map(canonicalWord);
}

const NOTHING = new Set<string>();

/**
 * The key two questions share when they ask the same thing: the words that carry the question (and its
 * answer choices), stemmed and in a usual spelling, in any order, unless the question compares or
 * directs ("louder than", "from … to …"), when their order counts. A question with fewer than two
 * such words is matched only by its exact words.
 */
export function questionKey(question: string, options: string[] = []): string {
  const text = normaliseQuestion(question);
  const words = contentWords(text, NOTHING);
  const choices = options.flatMap((option) => contentWords(normaliseQuestion(option), CHOICE_WORDS));
  const all = [...words, ...choices.filter((word) => !words.includes(word))];
  const unique = [...new Set(all)];
  if (unique.length < 2) return `${KEY_VERSION}:t:${[text, ...options.map(normaliseQuestion)].join(" | ")}`;
  return ORDERED.test(text) ? `${KEY_VERSION}:o:${unique.join(" ")}` : `${KEY_VERSION}:s:${unique.sort().join(" ")}`;
}

/** Whether an answer to one question answers the other. */
export function sameQuestion(a: { question: string; options?: string[] }, b: { question: string; options?: string[] }): boolean {
  return questionKey(a.question, a.options) === questionKey(b.question, b.options);
}
