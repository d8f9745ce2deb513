// Labelled agent messages from build reviews: who each one addresses, if anyone. Used to
// measure the dialogue detector (and a plain substring rule beside it) for precision and recall.
import type { DialogueMember } from "@/lib/dialogue/detect";

export const TEAM: DialogueMember[] = [
  { id: "a", name: "Architect", persona: "architect", role: "System designer" },
  { id: "c", name: "Coder", persona: "coder", role: "Developer" },
  { id: "r", name: "Reviewer", persona: "reviewer", role: "Code reviewer" },
];

export interface LabelledMessage {
  speaker: "architect" | "coder" | "reviewer";
  text: string;
  /** For a review: whether it approves (its verdict). */
  approves?: boolean;
  /** The persona addressed, or null when the message addresses no one. */
  expected: "architect" | "coder" | "reviewer" | null;
}

export const LABELLED: LabelledMessage[] = [
  // The cases a substring rule gets wrong.
  { speaker: "reviewer", text: "This is not approved: the parser drops the last line.", approves: false, expected: null },
  { speaker: "reviewer", text: "LGTM. Error handling is thorough, no issues.", approves: true, expected: null },
  { speaker: "reviewer", text: "The guard reads `const x = ok ? a : b;` and that is fine.", approves: true, expected: null },
  { speaker: "reviewer", text: "Why a map and not a list?", approves: false, expected: "coder" },
  { speaker: "coder", text: "Added the submit button. Agreed.", expected: null },
  { speaker: "reviewer", text: "Thanks, no further questions.", approves: true, expected: null },
  // Mentions.
  { speaker: "reviewer", text: "@coder can you explain the retry loop?", approves: false, expected: "coder" },
  { speaker: "coder", text: "@Architect the brief says JSON but the sample is CSV. Which one wins?", expected: "architect" },
  { speaker: "reviewer", text: "Looks close. @Coder, please rename `tmp` before merging.", approves: false, expected: "coder" },
  { speaker: "architect", text: "@reviewer keep an eye on input validation in this one.", expected: "reviewer" },
  { speaker: "coder", text: "Pinging @reviewer: version 2 is up.", expected: "reviewer" },
  // Sentences opening with a name.
  { speaker: "reviewer", text: "Coder, the loop on line 12 never ends when the list is empty.", approves: false, expected: "coder" },
  { speaker: "coder", text: "Architect: should the parser accept trailing commas?", expected: "architect" },
  { speaker: "architect", text: "Coder, start with the tokenizer; the rest follows from it.", expected: "coder" },
  {
    speaker: "reviewer",
    text: "Nice work overall. Coder: one thing left, the error message is vague.",
    approves: false,
    expected: "coder",
  },
  { speaker: "coder", text: "Reviewer, I split the function as you asked.", expected: "reviewer" },
  // Questions that name a teammate.
  { speaker: "reviewer", text: "The cache is never cleared. Did the coder intend that?", approves: false, expected: "coder" },
  { speaker: "coder", text: "Does the architect want pagination in the first version?", expected: "architect" },
  { speaker: "reviewer", text: "Is this what the developer meant by 'streaming'?", approves: false, expected: "coder" },
  { speaker: "coder", text: "I kept it simple. Would the reviewer prefer a class here?", expected: "reviewer" },
  { speaker: "architect", text: "Can the developer keep the public API to two functions?", expected: "coder" },
  // Concerns in reviews that do not approve.
  { speaker: "reviewer", text: "I have a concern about the unbounded recursion in parse().", approves: false, expected: "coder" },
  { speaker: "reviewer", text: "It is unclear what happens when the file is empty.", approves: false, expected: "coder" },
  { speaker: "reviewer", text: "I'm not sure the timeout covers the retry path.", approves: false, expected: "coder" },
  { speaker: "reviewer", text: "Could you add a test for the negative numbers case.", approves: false, expected: "coder" },
  // Concern words in an approving review address no one.
  { speaker: "reviewer", text: "No concerns left: approved.", approves: true, expected: null },
  { speaker: "reviewer", text: "Approved. My earlier concern about recursion is resolved.", approves: true, expected: null },
  // Questions that name no one, or only the speaker.
  { speaker: "coder", text: "What should happen on an empty input?", expected: null },
  { speaker: "reviewer", text: "Is the O(n²) loop acceptable for 10 items? Probably yes.", approves: true, expected: null },
  { speaker: "coder", text: "As the coder, should I also write the docs? I'll do it anyway.", expected: null },
  { speaker: "architect", text: "How big will the input get? Let's assume under a megabyte.", expected: null },
  // Code, inline code and links are not speech.
  {
    speaker: "coder",
    text: "Here it is:\n```ts\nconst ok = items.length > 0 ? 'yes' : 'no';\n// @reviewer: not a mention\n```",
    expected: null,
  },
  { speaker: "coder", text: "See https://example.com/docs?section=retry for the pattern I followed.", expected: null },
  { speaker: "reviewer", text: "Rename `reviewer?.name` to something clearer.", approves: false, expected: null },
  { speaker: "coder", text: "The regex `@coder` in the test is just a fixture string.", expected: null },
  // Statements that name teammates but ask nothing of them.
  { speaker: "coder", text: "Following the architect's brief, I used a queue.", expected: null },
  { speaker: "architect", text: "The reviewer will check the error paths later.", expected: null },
  { speaker: "coder", text: "Version 3 addresses everything the reviewer listed.", expected: null },
  { speaker: "reviewer", text: "The coder fixed both blockers. Approved.", approves: true, expected: null },
  // An agent never addresses itself.
  { speaker: "coder", text: "@coder note to self: remove the debug print.", expected: null },
  { speaker: "reviewer", text: "Reviewer: checking the latest version now.", approves: true, expected: null },
  // Names inside other words are not names.
  { speaker: "reviewer", text: "The coders' guide recommends early returns. Approved.", approves: true, expected: null },
  { speaker: "coder", text: "I asked @architects-guild for advice.", expected: null },
];
