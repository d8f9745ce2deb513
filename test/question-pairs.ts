/**
 * Pairs of questions an agent might put to the people in a room, labelled by hand: `same` when an answer
 * to the first answers the second as well, `different` when it does not. The different pairs are near
 * misses on purpose (one word, a number, a direction, a negation apart), as questions asked in one room
 * about one piece of work tend to be. Used to measure how well two questions are recognised as the same.
 */
export interface QuestionPair {
  a: string;
  b: string;
  same: boolean;
  /** Answer choices offered with each question, when they were. */
  optionsA?: string[];
  optionsB?: string[];
}

export const QUESTION_PAIRS: QuestionPair[] = [
  // The same question, worded differently.
  { same: true, a: "Which light should the scene have: neon or moonlight?", b: "Which light should the scene have: moonlight or neon?" },
  {
    same: true,
    a: "Whose eyes should the story see through: the one who stays or the one who leaves?",
    b: "Whose eyes should the story see through — the one who leaves, or the one who stays?",
  },
  { same: true, a: "Should I group the canvas by mood or by who made it?", b: "Should the canvas be grouped by mood or by who made it?" },
  { same: true, a: "What colour should the title be?", b: "What color should the title be?" },
  { same: true, a: "Do you want the song in a major or a minor key?", b: "Major or minor key for the song?" },
  { same: true, a: "Which database should we use: PostgreSQL or SQLite?", b: "Should we use PostgreSQL or SQLite as the database?" },
  { same: true, a: "Quick question: should the chorus repeat twice?", b: "Should the chorus repeat twice?" },
  {
    same: true,
    a: "To be specific: which image should carry the verse: rain or lamps?",
    b: "Which image should carry the verse: rain or lamps?",
  },
  { same: true, a: "Is it OK to use TypeScript for the frontend?", b: "Can we use TypeScript for the frontend?" },
  { same: true, a: "Should the story end happily?", b: "Should the story have a happy ending?" },
  { same: true, a: "What's the deadline for the first draft?", b: "What is the deadline for the first draft?" },
  { same: true, a: "Should the poem rhyme?", b: "Does the poem need to rhyme?" },
  { same: true, a: "Which font should the poster use: serif or sans-serif?", b: "Serif or sans-serif font for the poster?" },
  { same: true, a: "Should the painting be warm or cool in tone?", b: "Warm or cool tones for the painting?" },
  { same: true, a: "Which city is the story set in?", b: "In which city is the story set?" },
  { same: true, a: "Do you prefer a dark theme or a light theme?", b: "Dark theme or light theme — which do you prefer?" },
  { same: true, a: "Should the API return JSON or XML?", b: "JSON or XML: which should the API return?" },
  { same: true, a: "What tempo should the song have?", b: "What tempo do you want for the song?" },
  { same: true, a: "Should the narrator be the child or the grandmother?", b: "Should the grandmother or the child narrate?" },
  { same: true, a: "Should I use OAuth2 for login?", b: "Should we use OAuth2 for the login?" },
  { same: true, a: "Which season should the scene show, winter or autumn?", b: "Winter or autumn: which season should the scene show?" },
  { same: true, a: "Can I delete the unused nodes on the canvas?", b: "May I remove the unused nodes from the canvas?" },
  { same: true, a: "Where should the story begin?", b: "Where should the story start?" },
  { same: true, a: "Should the lyrics mention the harbour?", b: "Should the lyrics mention the harbor?" },
  { same: true, a: "How many verses should the song have?", b: "How many verses do you want in the song?" },
  {
    same: true,
    a: "Which light should the scene have?",
    optionsA: ["neon", "moonlight"],
    b: "Which light should the scene have: neon or moonlight?",
    optionsB: ["neon", "moonlight"],
  },
  { same: true, a: "WHICH LIGHT SHOULD THE SCENE HAVE?!", b: "which light should the scene have" },
  { same: true, a: "Should the curator group the canvas by mood?", b: "Should the Curator group the canvas by mood?" },
  { same: true, a: "Should the logo be blue?", b: "Would you like the logo to be blue?" },
  { same: true, a: "Which sparks should I follow: melancholy or joy?", b: "Melancholy or joy: which sparks should I follow?" },
  { same: true, a: "Should the reviewer check the tests first?", b: "Should the reviewer check the tests first, please?" },
  { same: true, a: "Is the demo on Friday?", b: "Is the demo on Friday or not?" },
  { same: true, a: "Should the scene be painted at night?", b: "Should I paint the scene at night?" },
  {
    same: true,
    a: "Which ending do you prefer: the open one or the closed one?",
    b: "Do you prefer the closed ending or the open ending?",
  },
  {
    same: true,
    a: "For “a song about the harbour”: what should come first — gulls or fog?",
    b: "What should come first in the harbour song, the gulls or the fog?",
  },
  { same: true, a: "Should we keep the old colour palette?", b: "Do we keep the old color palette?" },
  { same: true, a: "Which way should the story go: comedy or tragedy?", b: "Should the story be a comedy or a tragedy?" },
  { same: true, a: "Can the verse be longer than eight lines?", b: "May the verse be longer than eight lines?" },

  // Near misses: the same shape, a different question.
  { same: false, a: "Which light should the scene have: neon or moonlight?", b: "Which light should the scene have: candlelight or dawn?" },
  { same: false, a: "What colour should the title be?", b: "What colour should the background be?" },
  { same: false, a: "Should the story end happily?", b: "Should the story begin happily?" },
  { same: false, a: "Should the chorus repeat twice?", b: "Should the chorus repeat three times?" },
  { same: false, a: "Should the poem rhyme?", b: "Should the poem not rhyme?" },
  {
    same: false,
    a: "Which database should we use: PostgreSQL or SQLite?",
    b: "Which database should we use for tests: PostgreSQL or SQLite?",
  },
  { same: false, a: "Whose eyes should the story see through?", b: "Whose voice should the story be told in?" },
  { same: false, a: "Should the song be in a major key?", b: "Should the bridge be in a major key?" },
  { same: false, a: "Do you prefer a dark theme?", b: "Do you prefer a dark logo?" },
  { same: false, a: "Should I group the canvas by mood or by who made it?", b: "Should I group the canvas by colour or by size?" },
  { same: false, a: "What tempo should the song have?", b: "What key should the song have?" },
  { same: false, a: "Should the API return JSON?", b: "Should the API accept JSON?" },
  { same: false, a: "Is the deadline Friday?", b: "Is the demo Friday?" },
  { same: false, a: "Should the painting be warm in tone?", b: "Should the poem be warm in tone?" },
  { same: false, a: "Who is the audience for the song?", b: "Who is the singer of the song?" },
  { same: false, a: "Should the story be set in Lisbon?", b: "Should the story be set in Porto?" },
  { same: false, a: "How long should the verse be?", b: "How long should the chorus be?" },
  { same: false, a: "Should we write tests before the refactor?", b: "Should we write tests after the refactor?" },
  { same: false, a: "Should the first verse mention the harbour?", b: "Should the last verse mention the harbour?" },
  { same: false, a: "Can I delete the unused nodes?", b: "Can I delete all the nodes?" },
  { same: false, a: "Should the curator group by mood?", b: "Should the songwriter group by mood?" },
  { same: false, a: "Should the scene be lit by one lamp?", b: "Should the scene be lit by two lamps?" },
  { same: false, a: "Should I use OAuth2 for login?", b: "Should I use OAuth2 for signup?" },
  { same: false, a: "Should the story end in winter?", b: "Should the story start in winter?" },
  { same: false, a: "Do you want the logo in blue?", b: "Do you want the logo in green?" },
  { same: false, a: "Should the chorus be louder than the verse?", b: "Should the verse be louder than the chorus?" },
  { same: false, a: "Should the hero die at the end?", b: "Should the hero die at the start?" },
  { same: false, a: "Which image should carry the verse: rain or lamps?", b: "Which image should carry the chorus: rain or lamps?" },
  { same: false, a: "Should I add a contact form?", b: "Should I remove the contact form?" },
  { same: false, a: "Should we move the notes from the board to the canvas?", b: "Should we move the notes from the canvas to the board?" },
  { same: false, a: "Is the song too long?", b: "Is the song too short?" },
  { same: false, a: "Should the verse use the word harbour?", b: "Should the verse avoid the word harbour?" },
  { same: false, a: "Should the title be in capitals?", b: "Should the title be in italics?" },
  {
    same: false,
    a: "Which light should the scene have?",
    optionsA: ["neon", "moonlight"],
    b: "Which light should the scene have?",
    optionsB: ["candlelight", "dawn"],
  },
  { same: false, a: "Should the scene be painted at night?", b: "Should the scene be painted at dawn?" },
  { same: false, a: "Should we ship on Monday?", b: "Should we ship by Monday?" },
  { same: false, a: "Should the grandmother narrate?", b: "Should the grandmother die?" },
  { same: false, a: "Can the verse be longer than eight lines?", b: "Can the verse be shorter than eight lines?" },
  // Written after the rule, and kept as they came out: how it does on questions it was not shaped by.
  {
    same: true,
    a: "Should the reviewer approve the change if only the docs are missing?",
    b: "If only the docs are missing, should the reviewer approve the change?",
  },
  { same: true, a: "Do you want the verses to rhyme in pairs?", b: "Should the verses rhyme in pairs?" },
  { same: true, a: "Which language should the service be written in: Go or Rust?", b: "Go or Rust for the service?" },
  { same: true, a: "Is it fine to skip the bridge?", b: "Can we skip the bridge?" },
  { same: true, a: "Should the painting include people?", b: "Should there be people in the painting?" },
  { same: true, a: "What mood should the song have?", b: "What's the mood of the song?" },
  { same: true, a: "Should I keep the working title “Harbour Lights”?", b: "Should we keep “Harbor Lights” as the working title?" },
  { same: true, a: "Shall we publish the brainstorm's top three ideas?", b: "Should we publish the top three ideas from the brainstorm?" },
  { same: false, a: "Should the reviewer approve the change?", b: "Should the reviewer reject the change?" },
  { same: false, a: "Do you want the verses to rhyme in pairs?", b: "Do you want the verses to rhyme in threes?" },
  {
    same: false,
    a: "Which language should the service be written in: Go or Rust?",
    b: "Which language should the tests be written in: Go or Rust?",
  },
  { same: false, a: "Is it fine to skip the bridge?", b: "Is it fine to skip the intro?" },
  { same: false, a: "Should the painting include people?", b: "Should the painting include animals?" },
  { same: false, a: "What mood should the song have?", b: "What mood should the painting have?" },
  { same: false, a: "Shall we publish the brainstorm's top three ideas?", b: "Shall we publish the brainstorm's top five ideas?" },
  { same: false, a: "Should the scene be brighter than the last one?", b: "Should the last one be brighter than the scene?" },
];
