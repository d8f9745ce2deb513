/**
 * Words of the creative canvas's craft (verses, scenes, moods, sparks, the demo's rain and
 * lighthouse) that an agent working on some other task has no reason to write.
 */
const CREATIVE_WORDS =
  /\b(verses?|chorus|lyrics?|scenes?|story|stories|moods?|palette|melancholic|uplifting|serene|electric|earthy|neon|rain|lighthouse|painting|paint|song|sparks?|imagery|umbrella|streetlights?)\b/i;

/** The creative words `text` contains (none, for text about a task of another kind). */
export function creativeWordsIn(text: string): string[] {
  return [...text.matchAll(new RegExp(CREATIVE_WORDS.source, "gi"))].map((match) => match[0]);
}
