import { execFileSync } from "node:child_process";
import { generateText, isStepCount, tool } from "ai";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { buildPrompt } from "@/lib/agents/build-prompt";
import { PROMPT_SECTIONS_KEY, type WorkflowTaskData } from "@/lib/agents/prompt-sections";
import { briefTask, codeTask, reviewTask } from "@/lib/build-review/prompts";
import { DEFAULT_ROOM_SETTINGS } from "@/lib/rooms/room-settings";
import { functionName } from "./build-review";
import { createScriptModel } from "./script-model";

/** A build review step as its run hands it to the model: the opening in words, and as data with the step's task. */
function asRun(name: string, persona: string, step: { prompt: string; taskData: WorkflowTaskData }) {
  const { system, prompt, sections } = buildPrompt({
    agent: { name, persona, role: name, systemPrompt: "" },
    team: [],
    settings: DEFAULT_ROOM_SETTINGS,
    run: { prompt: step.prompt, trigger: "request", requestedByName: "Build review", chainDepth: 0, taskData: step.taskData },
    canvas: { nodes: [], edges: [] },
    referencedNodes: [],
    board: [],
    requests: [],
    notes: [],
    toolNames: [],
  });
  return { system, prompt, providerOptions: { [PROMPT_SECTIONS_KEY]: { prompt: sections } } };
}

/** The brief the scripted Architect writes for `task`, as its final message. */
async function briefWritten(task: string): Promise<string> {
  const result = await generateText({
    model: createScriptModel({ name: "architect" }),
    ...asRun("Architect", "architect", briefTask(task)),
  });
  return result.text;
}

/** What the scripted Coder submits for `task`, in the version asked for, through the AI SDK as a run calls it. */
async function codeWritten(task: string, version: number, brief = "Handle the edge cases."): Promise<{ language: string; code: string }> {
  const submitted: { language: string; code: string }[] = [];
  await generateText({
    model: createScriptModel({ name: "coder" }),
    ...asRun("Coder", "coder", codeTask({ task, brief, codeVersion: version - 1, round: version, maxRounds: 3, lastVerdict: null })),
    tools: {
      submit_code: tool({
        inputSchema: z.object({ language: z.string(), code: z.string() }),
        execute: async (input) => {
          submitted.push(input);
          return { ok: true, nodeId: "n1", version };
        },
      }),
    },
    stopWhen: isStepCount(3),
  });
  expect(submitted).toHaveLength(1);
  return submitted[0]!;
}

/** The scripted Reviewer's verdict on `code`, through its tool. */
async function verdictOn(task: string, brief: string, code: string) {
  const verdicts: { verdict: string; issues: { severity: string; text: string }[]; openQuestions: string[] }[] = [];
  await generateText({
    model: createScriptModel({ name: "reviewer" }),
    ...asRun("Reviewer", "reviewer", reviewTask({ task, brief, codeVersion: 1, round: 1, maxRounds: 3 }, code)),
    tools: {
      submit_verdict: tool({
        inputSchema: z.object({
          verdict: z.string(),
          issues: z.array(z.object({ severity: z.string(), text: z.string() })),
          openQuestions: z.array(z.string()),
        }),
        execute: async (input) => {
          verdicts.push(input);
          return { ok: true };
        },
      }),
    },
    stopWhen: isStepCount(2),
  });
  expect(verdicts).toHaveLength(1);
  return verdicts[0]!;
}

/** The `name(input) → output` examples in the code's comments. */
function examplesOf(code: string): { call: string; expected: string }[] {
  return [...code.matchAll(/^(?:#|\/\/) ([^\s(]+\(.*\)) → (.+)$/gm)].map((match) => ({ call: match[1]!, expected: match[2]! }));
}

/** Runs TypeScript or JavaScript code and checks each of its own examples against what the function returns. */
function checkScript(code: string): void {
  const output = ts.transpileModule(code, {
    reportDiagnostics: true,
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext },
  });
  expect((output.diagnostics ?? []).map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"))).toEqual([]);
  const name = code.match(/^export function (\S+)\(/m)![1]!;
  expect(examplesOf(code).length, name).toBeGreaterThan(0);
  const body = output.outputText.replace(/^export /m, "");
  for (const example of examplesOf(code)) {
    const [actual, expected] = new Function(`${body}\nreturn [${example.call}, ${example.expected}];`)() as [unknown, unknown];
    expect(actual, `${name}: ${example.call}`).toEqual(expected);
  }
}

/** Runs Python code with python3 and checks each of its own examples with `==`. */
function checkPython(code: string): void {
  expect(examplesOf(code).length).toBeGreaterThan(0);
  const checks = examplesOf(code).map((example) => `assert ${example.call} == ${example.expected}, ${JSON.stringify(example.call)}`);
  execFileSync("python3", ["-c", `${code}\n\n${checks.join("\n")}\nprint("ok")`], { encoding: "utf8" });
}

// Small tasks of the kinds people type: the language, the function's name and its return type they ask for.
const TASKS: { task: string; language: "python" | "typescript" | "javascript"; name: string; returns: string }[] = [
  {
    task: "Write a Python function word_count(s) that returns how many words s has",
    language: "python",
    name: "word_count",
    returns: "int",
  },
  {
    task: "Write a function that counts the words in a sentence, ignoring punctuation",
    language: "typescript",
    name: "countWords",
    returns: "number",
  },
  { task: "Count the vowels in a string, in Python", language: "python", name: "count_vowels", returns: "int" },
  {
    task: "Write a TypeScript function reverseString(text) that reverses a string",
    language: "typescript",
    name: "reverseString",
    returns: "string",
  },
  { task: "Reverse the order of the words in a sentence", language: "typescript", name: "reverseWords", returns: "string" },
  { task: "Check whether a string is a palindrome, in JavaScript", language: "javascript", name: "isPalindrome", returns: "boolean" },
  {
    task: "Write FizzBuzz in Python: fizzbuzz(n) returns the list of lines from 1 to n",
    language: "python",
    name: "fizzbuzz",
    returns: "list[str]",
  },
  { task: "FizzBuzz up to n", language: "typescript", name: "fizzBuzz", returns: "string[]" },
  {
    task: "Remove duplicates from a list of numbers, keeping the first of each",
    language: "typescript",
    name: "dedupe",
    returns: "number[]",
  },
  { task: "Write a Python function dedupe(items) that drops duplicate items", language: "python", name: "dedupe", returns: "list[int]" },
  { task: "Parse a comma-separated list of integers", language: "typescript", name: "parseNumbers", returns: "number[]" },
  {
    task: "Parse key=value pairs separated by & into an object, in JavaScript",
    language: "javascript",
    name: "parsePairs",
    returns: "Object<string, string>",
  },
  { task: "Validate an email address in Python", language: "python", name: "is_valid_email", returns: "bool" },
  { task: "Write isValidEmail(address) that validates an email address", language: "typescript", name: "isValidEmail", returns: "boolean" },
  {
    task: "Check that a password is strong: at least 8 characters with a letter and a digit",
    language: "typescript",
    name: "isStrongPassword",
    returns: "boolean",
  },
  { task: "Write a Python function is_prime(n) that tells whether n is prime", language: "python", name: "is_prime", returns: "bool" },
  { task: "Compute the factorial of n", language: "typescript", name: "factorial", returns: "number" },
  { task: "Return the nth Fibonacci number in Python", language: "python", name: "fibonacci", returns: "int" },
  { task: "Turn a title into a URL slug", language: "typescript", name: "slugify", returns: "string" },
  { task: "Capitalize every word of a sentence, in Python", language: "python", name: "title_case", returns: "str" },
  { task: "Convert Celsius to Fahrenheit in JavaScript", language: "javascript", name: "celsiusToFahrenheit", returns: "number" },
  { task: "Flatten a list of lists of numbers", language: "typescript", name: "flatten", returns: "number[]" },
  { task: "Sum the numbers in a list, in Python", language: "python", name: "total", returns: "int" },
  { task: "Find the largest number in a list; an empty list has none", language: "typescript", name: "largest", returns: "number | null" },
  {
    task: "Count how often each word appears in a text, in Python",
    language: "python",
    name: "word_frequencies",
    returns: "dict[str, int]",
  },
  { task: "Count the letters in a string", language: "typescript", name: "countLetters", returns: "number" },
];

describe("the offline Build review team", () => {
  it("codes in the task's language, with the name and return type it asks for, and examples that hold when run", async () => {
    expect(TASKS.length).toBeGreaterThanOrEqual(20);
    for (const { task, language, name, returns } of TASKS) {
      const brief = await briefWritten(task);
      expect(brief, task).toContain(`Function: ${name}(`);
      expect(brief, task).toContain(`returning ${returns}`);
      for (const version of [1, 2]) {
        const written = await codeWritten(task, version, brief);
        expect(written.language, task).toBe(language);
        if (language === "python") {
          expect(written.code, task).toMatch(new RegExp(`^def ${name}\\(\\w+: .+\\) -> ${returns.replace(/[[\]|]/g, "\\$&")}:$`, "m"));
          checkPython(written.code);
        } else {
          if (language === "typescript")
            expect(written.code, task).toMatch(
              new RegExp(`^export function ${name}\\(\\w+: .+\\): ${returns.replace(/[[\]|]/g, "\\$&")} \\{$`, "m"),
            );
          else expect(written.code, task).toContain(`@returns {${returns}}`);
          expect(written.code, task).toMatch(new RegExp(`^export function ${name}\\(`, "m"));
          checkScript(written.code);
        }
      }
    }
  }, 60_000);

  it("has the Reviewer ask for the brief's missing examples, approve code whose examples agree, and refuse code that contradicts the brief", async () => {
    for (const { task } of TASKS) {
      const brief = await briefWritten(task);
      const first = await verdictOn(task, brief, (await codeWritten(task, 1, brief)).code);
      expect(first.verdict, task).toBe("changes");
      expect(first.issues.map((issue) => issue.text).join(" "), task).toMatch(/leave out/);
      const second = await verdictOn(task, brief, (await codeWritten(task, 2, brief)).code);
      expect(second, task).toEqual({ verdict: "approve", issues: [], openQuestions: [] });
    }
    // Code whose own examples contradict the brief, in the wrong language and with the wrong shape: changes, saying why.
    const task = "Write a Python function word_count(s) that returns how many words s has";
    const brief = await briefWritten(task);
    const wrong = [
      "export function pythonFunctionWord(input: string): string[] {",
      "  return input.split(/\\s+/).filter(Boolean);",
      "}",
      "// Examples:",
      '// word_count("Hello, world!") → ["Hello,", "world!"]',
      '// word_count("  one  ") → 1',
      '// word_count("") → 0',
    ].join("\n");
    const verdict = await verdictOn(task, brief, wrong);
    expect(verdict.verdict).toBe("changes");
    const said = verdict.issues.map((issue) => issue.text);
    expect(said).toContain("The task asks for Python; this is TypeScript.");
    expect(said).toContain("The function should be named word_count, not pythonFunctionWord.");
    expect(said).toContain(
      'The code\'s example word_count("Hello, world!") → ["Hello,", "world!"] contradicts the brief\'s word_count("Hello, world!") → 2.',
    );
    // The same contradiction in otherwise right code is still refused.
    const right = (await codeWritten(task, 2, brief)).code;
    const contradicting = right.replace('# word_count("Hello, world!") → 2', '# word_count("Hello, world!") → 3');
    expect(contradicting).not.toBe(right);
    expect((await verdictOn(task, brief, contradicting)).issues).toEqual([
      {
        severity: "blocker",
        text: 'The code\'s example word_count("Hello, world!") → 3 contradicts the brief\'s word_count("Hello, world!") → 2.',
      },
    ]);
  }, 60_000);

  it("names a function it cannot place with a valid identifier, and its code still parses and keeps its examples", async () => {
    for (const task of [
      "2+2",
      "Écris une fonction qui compte les mots d'une phrase",
      "Delete",
      "new",
      "!!!",
      "",
      "x² + y² for every point",
      "计算句子中的单词",
      "Return the */ end of a comment",
    ]) {
      const written = await codeWritten(task, 2);
      expect(written.code.match(/^export function (\S+)\(/m)?.[1], task).toMatch(/^[\p{ID_Start}$_][\p{ID_Continue}$\u200c\u200d]*$/u);
      checkScript(written.code);
    }
  });

  it("keeps the task's words readable: accents taken off, digits kept apart and never first", () => {
    expect(functionName("Write a function that counts the words in a sentence")).toBe("countWordsSentence");
    expect(functionName("2+2")).toBe("solve2_2");
    expect(functionName("Écris une fonction qui compte les mots")).toBe("ecriUneFonction");
    expect(functionName("Zähle die Wörter")).toBe("zahleDieWorter");
    expect(functionName("Straße finden")).toBe("strasseFinden");
    expect(functionName("x² + y²")).toBe("x2Y2");
    expect(functionName("Delete")).toBe("doDelete");
    expect(functionName("!!!")).toBe("solve");
    expect(functionName("计算单词")).toBe("计算单词");
  });
});
