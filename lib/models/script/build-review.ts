// The Build review personas of the offline model: the Architect briefs, the Coder says it is
// ready and codes, the Reviewer reviews, and the two talk when the Reviewer has an open question.
// Each reads which step it plays from its task as data (the build review's or the dialogue's),
// never from the task's words. The default run has one two-round dialogue, then a second
// version that is approved.
import { type CodeLanguage, type CodeTask, examplesBlock, examplesIn, languageOfCode, readCodeTask, signatureOf } from "./code-tasks";
import type { PlannedStep } from "./plan";
import type { PastCall, ScriptReading } from "./read-prompt";
import type { WorkflowTask } from "./workflow-task";

const BUILD_REVIEW_SCRIPTS = new Set(["architect", "coder", "reviewer"]);

const STOP_WORDS = new Set([
  "the",
  "a",
  "an",
  "in",
  "of",
  "to",
  "for",
  "and",
  "with",
  "from",
  "into",
  "on",
  "that",
  "which",
  "each",
  "given",
]);

/** Words JavaScript (in a module, which is strict) does not take as a function's name. */
const RESERVED = new Set(
  (
    "await break case catch class const continue debugger default delete do else enum export extends false finally for function if " +
    "implements import in instanceof interface let new null package private protected public return static super switch this throw " +
    "true try typeof var void while with yield arguments eval"
  ).split(" "),
);

/** Letters that have no accent to take off, written as ASCII does. */
const SPELLED_OUT: Record<string, string> = { ß: "ss", æ: "ae", œ: "oe", ø: "o", đ: "d", ð: "d", ł: "l", þ: "th", ı: "i" };

/**
 * The task's words in ASCII where they have a plain spelling: accents taken off ("Écris" →
 * "ecris"), ligatures and superscripts written out; letters of other scripts are kept, as
 * JavaScript takes them in names.
 */
function plainWords(task: string): string {
  return task
    .toLowerCase()
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .replace(/[ßæœøđðłþı]/g, (letter) => SPELLED_OUT[letter]!);
}

/**
 * A function name from the task: "Write a function that counts the words in a sentence" →
 * countWordsSentence. Always a name JavaScript accepts: "2+2" → solve2_2, "Delete" → doDelete,
 * a task with no letters or digits → solve.
 */
export function functionName(task: string): string {
  const phrase = plainWords(task)
    .replace(/^(please\s+)?(write|implement|create|build|make|code)\s+/, "")
    .replace(/^(a|an|the)\s+/, "")
    .replace(/^(small\s+)?(function|program|script|helper|module|method|utility)\s+/, "")
    .replace(/^(that|to|which|who)\s+/, "");
  const words = phrase
    .split(/[^\p{L}\p{Nd}]+/u)
    .filter((word) => word && !STOP_WORDS.has(word))
    .slice(0, 3);
  if (words.length === 0) return "solve";
  const [first, ...rest] = words;
  const verb = first!.endsWith("ies")
    ? `${first!.slice(0, -3)}y`
    : first!.endsWith("s") && first!.length > 3
      ? first!.slice(0, -1)
      : first!;
  // Digits next to digits keep a separator: "2 + 2" is solve2_2, not solve22.
  const name = [verb, ...rest].reduce(
    (joined, word) => joined + (/\p{Nd}$/u.test(joined) && /^\p{Nd}/u.test(word) ? "_" : "") + word[0]!.toUpperCase() + word.slice(1),
  );
  if (!/^\p{ID_Start}/u.test(name)) return `solve${name}`;
  return RESERVED.has(name) ? `do${name[0]!.toUpperCase()}${name.slice(1)}` : name;
}

/** The task as the offline team reads it, its function named from the task's words when it names none. */
function specOf(task: string): CodeTask {
  return readCodeTask(task, functionName(task));
}

function codeFor(task: string, version: number): { language: CodeLanguage; code: string } {
  const spec = specOf(task);
  // Version 1 shows the main case only; version 2 guards a missing value and shows every case the brief lists.
  const examples = version > 1 ? spec.examples : spec.examples.slice(0, 1);
  return { language: spec.language, code: [...spec.body(version), "", ...examplesBlock(spec.language, examples)].join("\n") };
}

const LANGUAGE_NAMES: Record<CodeLanguage, string> = { python: "Python", typescript: "TypeScript", javascript: "JavaScript" };

/** The brief's lines: the goal, the function asked for, the examples it must agree with. */
function briefFor(task: string): string {
  const spec = specOf(task);
  return [
    `Goal: ${task}`,
    `Language: ${LANGUAGE_NAMES[spec.language]}`,
    `Function: ${spec.name}(${spec.param}: ${spec.paramType}) returning ${spec.returnType}`,
    "Examples:",
    ...spec.examples.map((example) => `- ${example}`),
    "Edge cases: an empty input, a missing value.",
    "Done when: the code's own examples show every example above with the same results, and it reads clearly.",
  ].join("\n");
}

/**
 * What the Reviewer finds wrong with the code against the task and the brief: another language,
 * another name or return type, examples that contradict the brief (a blocker), or leave some of
 * its examples out (major). Nothing when the code does what the brief says.
 */
function reviewIssues(task: string, brief: string, code: string): { severity: "blocker" | "major"; text: string }[] {
  const spec = specOf(task);
  const issues: { severity: "blocker" | "major"; text: string }[] = [];
  const language = languageOfCode(code);
  if (language !== spec.language) {
    issues.push({ severity: "blocker", text: `The task asks for ${LANGUAGE_NAMES[spec.language]}; this is ${LANGUAGE_NAMES[language]}.` });
  }
  const signature = signatureOf(code);
  if (signature.name !== spec.name)
    issues.push({ severity: "blocker", text: `The function should be named ${spec.name}, not ${signature.name ?? "nothing"}.` });
  if (language === spec.language && signature.returnType !== spec.returnType) {
    issues.push({
      severity: "blocker",
      text: `${spec.name} should return ${spec.returnType}, not ${signature.returnType ?? "an undeclared type"}.`,
    });
  }
  const wanted = examplesIn(brief).length ? examplesIn(brief) : spec.examples;
  const shown = examplesIn(code);
  const callOf = (example: string) => example.split(" → ")[0]!;
  for (const example of wanted) {
    const same = shown.find((line) => callOf(line) === callOf(example));
    if (!same) issues.push({ severity: "major", text: `The examples leave out ${callOf(example)}; the brief expects ${example}.` });
    else if (same !== example) issues.push({ severity: "blocker", text: `The code's example ${same} contradicts the brief's ${example}.` });
  }
  return issues;
}

function call(reading: ScriptReading, toolName: string, input: Record<string, unknown>, tag: string): PlannedStep {
  void reading;
  return { text: "", calls: [{ tag, toolName, input }] };
}

const done = (calls: PastCall[], tool: string) => calls.some((past) => past.toolName === tool && !past.failed);

/** The next step of a Build review persona, or of a dialogue's turn; null when the run is neither. */
export function buildReviewStep(reading: ScriptReading, tools: Set<string>, pastCalls: PastCall[]): PlannedStep | null {
  const { workflow } = reading;
  if (workflow?.workflow === "dialogue") return dialogueTurn(reading, workflow, tools);
  if (workflow?.workflow !== "build-review") return null;
  const step = reading.steps.length;
  const { task } = workflow;

  switch (workflow.step) {
    case "brief": {
      const body = briefFor(task);
      if (step === 0 && tools.has("create_node")) {
        return {
          text: "Here is the brief.",
          calls: [{ tag: "brief", toolName: "create_node", input: { kind: "brief", text: body, x: 0, y: 0 } }],
        };
      }
      return { text: body, calls: [] };
    }
    case "ready":
      return {
        text: `Ready: I will write ${specOf(task).name} as one ${LANGUAGE_NAMES[specOf(task).language]} function, and show every example the brief lists.`,
        calls: [],
      };
    case "code": {
      const { version } = workflow;
      if (!done(pastCalls, "submit_code") && tools.has("submit_code") && step === 0) {
        return { ...call(reading, "submit_code", codeFor(task, version), "code"), text: `Writing version ${version}.` };
      }
      return {
        text:
          version > 1
            ? `Version ${version} guards a missing value and shows every example the brief lists.`
            : `Version 1 writes ${specOf(task).name} and shows its main case.`,
        calls: [],
      };
    }
    case "review": {
      const issues = reviewIssues(task, workflow.brief, workflow.code);
      const missing = issues.find((issue) => issue.severity === "major")?.text.match(/leave out (.+?);/)?.[1];
      const question = missing ? `Coder, what does ${missing} return?` : null;
      if (step === 0 && tools.has("submit_verdict")) {
        return issues.length === 0
          ? {
              ...call(reading, "submit_verdict", { verdict: "approve", issues: [], openQuestions: [] }, "verdict"),
              text: "Its examples agree with the brief.",
            }
          : {
              ...call(reading, "submit_verdict", { verdict: "changes", issues, openQuestions: question ? [question] : [] }, "verdict"),
              text: "Changes needed.",
            };
      }
      return issues.length === 0
        ? { text: "Approved: the code's examples agree with every example in the brief.\nVERDICT: APPROVE", calls: [] }
        : { text: `${issues.map((issue) => issue.text).join(" ")}${question ? ` ${question}` : ""}\nVERDICT: CHANGES`, calls: [] };
    }
  }
}

/** A dialogue's turn: the addressee answers, the asker replies (in a build review, satisfied from the second round on). */
function dialogueTurn(reading: ScriptReading, turn: Extract<WorkflowTask, { workflow: "dialogue" }>, tools: Set<string>): PlannedStep {
  const { round } = turn;
  if (turn.turn === "answer") {
    // A persona outside a build review answers in its own terms, briefly.
    if (!BUILD_REVIEW_SCRIPTS.has(reading.persona)) {
      const asked = turn.followUp ?? turn.topic;
      return {
        text: `${asked.includes("?") ? "My answer" : "Noted"}: I would keep it simple and in the mood we already have, and build on what is on the canvas.`,
        calls: [],
      };
    }
    if (reading.persona === "architect")
      return { text: "Keep it to one function; the brief's examples are what it must return, empty input included.", calls: [] };
    return {
      text:
        round === 1
          ? "It returns what the brief's example says; version 2 shows that case among its examples."
          : "A missing value is rejected at the boundary: version 2 throws a TypeError for it and shows every case of the brief.",
      calls: [],
    };
  }
  // Outside a build review, the asker takes the first answer.
  const satisfied = round >= 2 || !BUILD_REVIEW_SCRIPTS.has(reading.persona);
  if (reading.steps.length === 0 && tools.has("reply_in_dialogue")) {
    return {
      ...call(
        reading,
        "reply_in_dialogue",
        satisfied ? { satisfied: true } : { satisfied: false, remaining: "How is a missing value handled?" },
        "reply",
      ),
      text: "",
    };
  }
  return { text: satisfied ? "Thanks, that clarifies it." : "That helps, though how is a missing value handled?", calls: [] };
}
