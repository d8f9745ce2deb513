// What the offline brainstorm reads from the problem typed, so every persona writes about that
// problem in its own words: "How might we cut onboarding time for new engineers?" gives the
// goal "cut onboarding time for new engineers", the topic "onboarding" and the people "new engineers".

export interface ProblemWords {
  /** The problem as typed, on one line. */
  problem: string;
  /** What is to be done: "cut onboarding time for new engineers". */
  goal: string;
  /** Its verb: "cut". */
  verb: string;
  /** What it acts on: "onboarding time". */
  object: string;
  /** What it is about, without measures like time or cost: "onboarding". */
  topic: string;
  /** Who it is for or who lives with it: "new engineers", or "people involved". */
  who: string;
  /** Where, when the problem says: "our office cafeteria". */
  place: string | null;
  /** The problem's content words, most telling first. */
  keywords: string[];
}

const OPENERS =
  /^(how\s+(might|can|could|should|do|would)\s+(we|i|you|our\s+team|the\s+team)\s+|what\s+if\s+we\s+|help\s+(us|me)\s+|we\s+(need|want)\s+to\s+|i\s+(need|want)\s+to\s+|let'?s\s+|ways\s+to\s+|find\s+ways\s+to\s+)/i;
const MEASURES = new Set([
  "time",
  "times",
  "cost",
  "costs",
  "rate",
  "rates",
  "number",
  "amount",
  "level",
  "levels",
  "speed",
  "quality",
  "share",
  "percentage",
  "risk",
  "chances",
  "count",
]);
const STOP = new Set(
  "a an the of to for in on at by with and or our their its my your we us you they them this that these those from into about as is are be more less most least new make get".split(
    " ",
  ),
);

function clean(text: string): string {
  return text
    .replace(/\s+/g, " ")
    .replace(/[?.!]+$/, "")
    .trim();
}

/** Words that name people, so "for new engineers" says who the problem is for and "for product prices" does not. */
const PEOPLE =
  /(people|persons?|engineers?|developers?|students?|users?|customers?|clients?|employees?|staff|teams?|members?|patients?|parents?|kids|children|residents?|visitors?|volunteers?|newcomers?|hires?|players?|readers?|learners?|drivers?|riders?|citizens?|workers?|managers?|teachers?|nurses?|doctors?|guests?|shoppers?|fans?|owners?|tenants?|commuters?|seniors?|families|adults|teens|everyone|colleagues?)$/i;

/** "cycle to work" → "cycling to work". */
function gerund(phrase: string): string {
  const [first = "", ...rest] = phrase.split(" ");
  const word = first.toLowerCase();
  const ing = /[^aeiou]e$/.test(word)
    ? `${word.slice(0, -1)}ing`
    : /^(run|swim|stop|shop|plan|sit|get|put|jog)$/.test(word)
      ? `${word}${word.at(-1)}ing`
      : `${word}ing`;
  return [ing, ...rest].join(" ");
}

/** Reads the problem's goal, topic and people; falls back to plain words when the sentence has another shape. */
export function readProblem(raw: string): ProblemWords {
  const problem = clean(raw);
  const goal = clean(problem.replace(OPENERS, "")) || problem;
  const words = goal.split(" ");
  const verb = (words[0] ?? "improve").toLowerCase();
  const rest = words.slice(1).join(" ");
  // "get more people to cycle to work": the people, and what they are to do.
  const persuade = goal.match(
    /^(?:get|help|encourage|persuade|convince|motivate)\s+(?:more\s+|fewer\s+|our\s+|the\s+)?([a-z][a-z\s-]*?)\s+to\s+(.+)$/i,
  );
  // "make our weekly meetings shorter": what, without how it should become.
  const become = goal.match(/^(?:make|keep)\s+(.+?)\s+((?:more|less)\s+\w+|\w+er)$/i);
  const forMatch = rest.match(
    /^(.*?)\s+(?:for|among|of)\s+((?:new\s+|our\s+|all\s+|the\s+)?[a-z][a-z\s-]*?)(?:\s+(?:in|at|on|within|across|by|so|when|while|who|that|without)\b.*)?$/i,
  );
  const forPeople = forMatch && PEOPLE.test(clean(forMatch[2]!)) ? forMatch : null;
  const placeMatch = goal.match(/\b(?:in|at|across|within)\s+((?:our|the|a|an)\s+[a-z][a-z\s-]{2,40})$/i);
  const place = placeMatch ? clean(placeMatch[1]!) : null;
  let object = clean((forPeople ? forPeople[1]! : rest).replace(/\b(?:in|at|across|within)\s+(?:our|the|a|an)\s+.*$/i, ""));
  if (persuade) object = gerund(clean(persuade[2]!));
  else if (become) object = clean(become[1]!);
  if (!object) object = goal;
  const who = persuade
    ? clean(persuade[1]!)
    : forPeople
      ? clean(forPeople[2]!.replace(/^the\s+/i, ""))
      : place
        ? `people in ${place}`
        : "people involved";
  const head = object.split(/\s+(?:for|of|with|from|about)\s+/i)[0]!;
  const objectWords = head.split(" ").filter((word) => !STOP.has(word.toLowerCase()));
  const topicWords = objectWords.filter((word) => !MEASURES.has(word.toLowerCase()));
  const topic = persuade
    ? object.toLowerCase()
    : (topicWords.length ? topicWords : objectWords).slice(0, 3).join(" ").toLowerCase() || "the work";
  const keywords = [
    ...new Set(
      goal
        .toLowerCase()
        .split(/[^a-z0-9-]+/)
        .filter((word) => word.length > 2 && !STOP.has(word) && !MEASURES.has(word)),
    ),
  ];
  return { problem, goal: goal[0]!.toLowerCase() + goal.slice(1), verb, object: object.toLowerCase(), topic, who, place, keywords };
}

/** Fills `{goal}`, `{topic}`, `{who}`, `{object}`, `{verb}`, `{place}` in a template. */
export function fill(template: string, words: ProblemWords): string {
  return template
    .replaceAll("{goal}", words.goal)
    .replaceAll("{topic}", words.topic)
    .replaceAll("{Topic}", words.topic[0]!.toUpperCase() + words.topic.slice(1))
    .replaceAll("{who}", words.who)
    .replaceAll("{Who}", words.who[0]!.toUpperCase() + words.who.slice(1))
    .replaceAll("{object}", words.object)
    .replaceAll("{verb}", words.verb)
    .replaceAll("{place}", words.place ?? "where it happens");
}
