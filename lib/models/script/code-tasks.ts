// What the offline Build review team understands of a small coding task: the language it names,
// the function it asks for (its name, parameter and return type), and examples of what it must
// return, which the Architect puts in the brief, the Coder shows in its code and the Reviewer
// compares. A task of a kind it does not know is read as splitting text into words.

export type CodeLanguage = "python" | "typescript" | "javascript";

type InputType = "str" | "int" | "ints" | "nested";
type OutputType = "int" | "float" | "bool" | "str" | "strs" | "ints" | "int-or-none" | "str-map" | "int-map";

type Value = string | number | boolean | null | Value[] | { [key: string]: Value };

interface Kind {
  key: string;
  /** Whether a task (lower case) asks for this. */
  matches: (task: string) => boolean;
  /** Its usual name, in words: joined as each language names functions. */
  words: string[];
  input: InputType;
  output: OutputType;
  /** Whether the Python body uses the `re` module. */
  usesRe?: boolean;
  python: (param: string) => string[];
  /** The TypeScript body; `type` gives a type annotation in TypeScript and nothing in JavaScript. */
  script: (param: string, type: (annotation: string) => string) => string[];
  examples: [Value, Value][];
}

const asks =
  (...patterns: RegExp[]) =>
  (task: string) =>
    patterns.every((pattern) => pattern.test(task));
const COUNT = /\b(count|counts|counting|how many|number of)\b/;

// Order matters: the first kind whose words the task holds is the one it asks for.
const KINDS: Kind[] = [
  {
    key: "fizzbuzz",
    matches: asks(/fizz\s*buzz/),
    words: ["fizz", "buzz"],
    input: "int",
    output: "strs",
    python: (n) => [
      `return ["FizzBuzz" if i % 15 == 0 else "Fizz" if i % 3 == 0 else "Buzz" if i % 5 == 0 else str(i) for i in range(1, ${n} + 1)]`,
    ],
    script: (n) => [
      `return Array.from({ length: Math.max(0, ${n}) }, (_, k) => {`,
      "  const i = k + 1;",
      '  return i % 15 === 0 ? "FizzBuzz" : i % 3 === 0 ? "Fizz" : i % 5 === 0 ? "Buzz" : String(i);',
      "});",
    ],
    examples: [
      [5, ["1", "2", "Fizz", "4", "Buzz"]],
      [0, []],
      [15, ["1", "2", "Fizz", "4", "Buzz", "Fizz", "7", "8", "Fizz", "Buzz", "11", "Fizz", "13", "14", "FizzBuzz"]],
    ],
  },
  {
    key: "word-frequency",
    matches: (task) => /frequenc|how often each word|count each word|occurrences of each word|each word appears/.test(task),
    words: ["word", "frequencies"],
    input: "str",
    output: "int-map",
    usesRe: true,
    python: (text) => [
      "counts = {}",
      `for word in re.findall(r"[a-z0-9']+", ${text}.lower()):`,
      "    counts[word] = counts.get(word, 0) + 1",
      "return counts",
    ],
    script: (text, type) => [
      `const counts${type(": Record<string, number>")} = {};`,
      `for (const word of ${text}.toLowerCase().match(/[a-z0-9']+/g) ?? []) counts[word] = (counts[word] ?? 0) + 1;`,
      "return counts;",
    ],
    examples: [
      ["the cat and the hat", { the: 2, cat: 1, and: 1, hat: 1 }],
      ["", {}],
    ],
  },
  {
    key: "count-vowels",
    matches: asks(/vowel/, COUNT),
    words: ["count", "vowels"],
    input: "str",
    output: "int",
    python: (text) => [`return sum(1 for ch in ${text}.lower() if ch in "aeiou")`],
    script: (text) => [`return (${text}.toLowerCase().match(/[aeiou]/g) ?? []).length;`],
    examples: [
      ["banana", 3],
      ["sky", 0],
      ["", 0],
    ],
  },
  {
    key: "count-words",
    matches: (task) => (COUNT.test(task) && /\bwords?\b/.test(task)) || /word[_ ]?count/.test(task),
    words: ["count", "words"],
    input: "str",
    output: "int",
    usesRe: true,
    python: (text) => [`return len(re.findall(r"[A-Za-z0-9']+", ${text}))`],
    script: (text) => [`return (${text}.match(/[A-Za-z0-9']+/g) ?? []).length;`],
    examples: [
      ["Hello, world!", 2],
      ["  one  ", 1],
      ["", 0],
    ],
  },
  {
    key: "count-letters",
    matches: asks(COUNT, /\b(letters|characters)\b/),
    words: ["count", "letters"],
    input: "str",
    output: "int",
    python: (text) => [`return sum(1 for ch in ${text} if ch.isalpha())`],
    script: (text) => [`return (${text}.match(/\\p{L}/gu) ?? []).length;`],
    examples: [
      ["a b c", 3],
      ["abc!", 3],
      ["", 0],
    ],
  },
  {
    key: "reverse-words",
    matches: asks(/revers/, /\bwords\b/),
    words: ["reverse", "words"],
    input: "str",
    output: "str",
    python: (text) => [`return " ".join(reversed(${text}.split()))`],
    script: (text) => [`return ${text}.split(/\\s+/).filter(Boolean).reverse().join(" ");`],
    examples: [
      ["one two three", "three two one"],
      ["", ""],
    ],
  },
  {
    key: "palindrome",
    matches: asks(/palindrom/),
    words: ["is", "palindrome"],
    input: "str",
    output: "bool",
    python: (text) => ["cleaned = [ch.lower() for ch in " + text + " if ch.isalnum()]", "return cleaned == cleaned[::-1]"],
    script: (text) => [
      `const cleaned = ${text}.toLowerCase().replace(/[^a-z0-9]/g, "");`,
      'return cleaned === [...cleaned].reverse().join("");',
    ],
    examples: [
      ["Racecar", true],
      ["abc", false],
      ["", true],
    ],
  },
  {
    key: "reverse-string",
    matches: asks(/revers/),
    words: ["reverse", "string"],
    input: "str",
    output: "str",
    python: (text) => [`return ${text}[::-1]`],
    script: (text) => [`return [...${text}].reverse().join("");`],
    examples: [
      ["abc", "cba"],
      ["", ""],
    ],
  },
  {
    key: "dedupe",
    matches: (task) => /dedup|duplicate|unique/.test(task),
    words: ["dedupe"],
    input: "ints",
    output: "ints",
    python: (items) => [`return list(dict.fromkeys(${items}))`],
    script: (items) => [`return [...new Set(${items})];`],
    examples: [
      [
        [1, 2, 2, 3, 1],
        [1, 2, 3],
      ],
      [[], []],
    ],
  },
  {
    key: "parse-pairs",
    matches: (task) => /key\s*=\s*value|key-value|key value|query string/.test(task),
    words: ["parse", "pairs"],
    input: "str",
    output: "str-map",
    usesRe: true,
    python: (text) => [
      `pairs = (part.split("=", 1) for part in re.split(r"[;&]", ${text}) if "=" in part)`,
      "return {key.strip(): value.strip() for key, value in pairs}",
    ],
    script: (text) => [
      "return Object.fromEntries(",
      `  ${text}`,
      "    .split(/[;&]/)",
      '    .filter((part) => part.includes("="))',
      '    .map((part) => [part.slice(0, part.indexOf("=")).trim(), part.slice(part.indexOf("=") + 1).trim()]),',
      ");",
    ],
    examples: [
      ["a=1&b=2", { a: "1", b: "2" }],
      ["", {}],
    ],
  },
  {
    key: "parse-numbers",
    matches: (task) => /\bparse|comma|csv/.test(task),
    words: ["parse", "numbers"],
    input: "str",
    output: "ints",
    python: (text) => [`return [int(part) for part in ${text}.split(",") if part.strip()]`],
    script: (text) => [`return ${text}.split(",").map((part) => part.trim()).filter(Boolean).map(Number);`],
    examples: [
      ["1, 2,3", [1, 2, 3]],
      ["", []],
    ],
  },
  {
    key: "valid-email",
    matches: asks(/e-?mail/),
    words: ["is", "valid", "email"],
    input: "str",
    output: "bool",
    usesRe: true,
    python: (text) => [`return re.fullmatch(r"[^@\\s]+@[^@\\s]+\\.[^@\\s]+", ${text}) is not None`],
    script: (text) => [`return /^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$/.test(${text});`],
    examples: [
      ["ada@example.com", true],
      ["ada@", false],
      ["", false],
    ],
  },
  {
    key: "strong-password",
    matches: asks(/password/),
    words: ["is", "strong", "password"],
    input: "str",
    output: "bool",
    python: (text) => [`return len(${text}) >= 8 and any(ch.isdigit() for ch in ${text}) and any(ch.isalpha() for ch in ${text})`],
    script: (text) => [`return ${text}.length >= 8 && /\\d/.test(${text}) && /\\p{L}/u.test(${text});`],
    examples: [
      ["harbour42", true],
      ["short1", false],
      ["12345678", false],
    ],
  },
  {
    key: "prime",
    matches: asks(/\bprime/),
    words: ["is", "prime"],
    input: "int",
    output: "bool",
    python: (n) => [`if ${n} < 2:`, "    return False", `return all(${n} % d for d in range(2, int(${n} ** 0.5) + 1))`],
    script: (n) => [`if (${n} < 2) return false;`, `for (let d = 2; d * d <= ${n}; d++) if (${n} % d === 0) return false;`, "return true;"],
    examples: [
      [7, true],
      [1, false],
      [9, false],
    ],
  },
  {
    key: "factorial",
    matches: asks(/factorial/),
    words: ["factorial"],
    input: "int",
    output: "int",
    python: (n) => ["result = 1", `for i in range(2, ${n} + 1):`, "    result *= i", "return result"],
    script: (n) => ["let result = 1;", `for (let i = 2; i <= ${n}; i++) result *= i;`, "return result;"],
    examples: [
      [5, 120],
      [0, 1],
    ],
  },
  {
    key: "fibonacci",
    matches: asks(/fibonacci/),
    words: ["fibonacci"],
    input: "int",
    output: "int",
    python: (n) => ["a, b = 0, 1", `for _ in range(${n}):`, "    a, b = b, a + b", "return a"],
    script: (n) => ["let [a, b] = [0, 1];", `for (let i = 0; i < ${n}; i++) [a, b] = [b, a + b];`, "return a;"],
    examples: [
      [10, 55],
      [0, 0],
      [1, 1],
    ],
  },
  {
    key: "slugify",
    matches: asks(/\bslug/),
    words: ["slugify"],
    input: "str",
    output: "str",
    usesRe: true,
    python: (text) => [`return "-".join(re.findall(r"[a-z0-9]+", ${text}.lower()))`],
    script: (text) => [`return (${text}.toLowerCase().match(/[a-z0-9]+/g) ?? []).join("-");`],
    examples: [
      ["Hello, World!", "hello-world"],
      ["", ""],
    ],
  },
  {
    key: "title-case",
    matches: (task) => /capitali[sz]|title[ -]case/.test(task),
    words: ["title", "case"],
    input: "str",
    output: "str",
    python: (text) => [`return " ".join(word[:1].upper() + word[1:] for word in ${text}.split())`],
    script: (text) => [
      `return ${text}`,
      "  .split(/\\s+/)",
      "  .filter(Boolean)",
      "  .map((word) => word.charAt(0).toUpperCase() + word.slice(1))",
      '  .join(" ");',
    ],
    examples: [
      ["hello harbour lights", "Hello Harbour Lights"],
      ["", ""],
    ],
  },
  {
    key: "celsius",
    matches: (task) => /celsius|fahrenheit/.test(task),
    words: ["celsius", "to", "fahrenheit"],
    input: "int",
    output: "float",
    python: (degrees) => [`return ${degrees} * 9 / 5 + 32`],
    script: (degrees) => [`return (${degrees} * 9) / 5 + 32;`],
    examples: [
      [100, 212],
      [0, 32],
      [-40, -40],
    ],
  },
  {
    key: "flatten",
    matches: asks(/flatten/),
    words: ["flatten"],
    input: "nested",
    output: "ints",
    python: (items) => [`return [item for group in ${items} for item in group]`],
    script: (items) => [`return ${items}.flat();`],
    examples: [
      [
        [[1, 2], [3]],
        [1, 2, 3],
      ],
      [[], []],
    ],
  },
  {
    key: "sum",
    matches: (task) => /\bsum\b|\btotal\b|add up/.test(task),
    words: ["total"],
    input: "ints",
    output: "int",
    python: (items) => [`return sum(${items})`],
    script: (items) => [`return ${items}.reduce((total, value) => total + value, 0);`],
    examples: [
      [[1, 2, 3], 6],
      [[], 0],
    ],
  },
  {
    key: "largest",
    matches: (task) => /largest|biggest|maximum|\bmax\b|highest/.test(task),
    words: ["largest"],
    input: "ints",
    output: "int-or-none",
    python: (items) => [`return max(${items}) if ${items} else None`],
    script: (items) => [`return ${items}.length ? Math.max(...${items}) : null;`],
    examples: [
      [[3, 9, 2], 9],
      [[], null],
    ],
  },
];

const SPLIT: Kind = {
  key: "split",
  matches: () => true,
  words: [],
  input: "str",
  output: "strs",
  python: (text) => [`return ${text}.split()`],
  script: (text) => [`return ${text}.split(/\\s+/).filter(Boolean);`],
  examples: [
    ["a  b", ["a", "b"]],
    ["", []],
  ],
};

const TYPES: Record<CodeLanguage, Record<InputType | OutputType, string>> = {
  python: {
    str: "str",
    int: "int",
    ints: "list[int]",
    nested: "list[list[int]]",
    float: "float",
    bool: "bool",
    strs: "list[str]",
    "int-or-none": "int | None",
    "str-map": "dict[str, str]",
    "int-map": "dict[str, int]",
  },
  typescript: {
    str: "string",
    int: "number",
    ints: "number[]",
    nested: "number[][]",
    float: "number",
    bool: "boolean",
    strs: "string[]",
    "int-or-none": "number | null",
    "str-map": "Record<string, string>",
    "int-map": "Record<string, number>",
  },
  javascript: {
    str: "string",
    int: "number",
    ints: "number[]",
    nested: "number[][]",
    float: "number",
    bool: "boolean",
    strs: "string[]",
    "int-or-none": "number | null",
    "str-map": "Object<string, string>",
    "int-map": "Object<string, number>",
  },
};

const DEFAULT_PARAMS: Record<InputType, string> = { str: "text", int: "n", ints: "items", nested: "groups" };

/** What the task asks for, as the offline Build review team reads it. */
export interface CodeTask {
  kind: string;
  language: CodeLanguage;
  name: string;
  param: string;
  /** The parameter's and the return value's types, as the language writes them. */
  paramType: string;
  returnType: string;
  /** `name(input) → output` lines, in the language's own literals. */
  examples: string[];
  /** The code as the Coder writes it, without its examples. */
  body: (version: number) => string[];
}

/** The language a task names; TypeScript when it names none. */
function languageOf(task: string): CodeLanguage {
  if (/\bpython\b|\.py\b/i.test(task)) return "python";
  if (/\bjavascript\b|\bnode(\.js)?\b|\bjs\b/i.test(task)) return "javascript";
  return "typescript";
}

/** The function a task names with its parameters, `word_count(s)`, or by itself in backticks. */
function namedFunction(task: string): { name: string; param?: string } | null {
  const called = task.match(/\b([A-Za-z_][A-Za-z0-9_]*)\(\s*([A-Za-z_][A-Za-z0-9_]*)?[^)]*\)/);
  if (called) return { name: called[1]!, ...(called[2] ? { param: called[2] } : {}) };
  const quoted = task.match(/`([A-Za-z_][A-Za-z0-9_]*)`/);
  return quoted ? { name: quoted[1]! } : null;
}

function joinedName(words: string[], language: CodeLanguage): string {
  if (language === "python") return words.join("_");
  return words.map((word, index) => (index === 0 ? word : word[0]!.toUpperCase() + word.slice(1))).join("");
}

/** A value as the language writes it: `True`, `None` and `{"a": 1}` in Python; `true`, `null` in JavaScript. */
function literal(value: Value, language: CodeLanguage): string {
  if (value === null) return language === "python" ? "None" : "null";
  if (typeof value === "boolean") return language === "python" ? (value ? "True" : "False") : String(value);
  if (typeof value === "number" || typeof value === "string") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((item) => literal(item, language)).join(", ")}]`;
  const entries = Object.entries(value);
  if (entries.length === 0) return "{}";
  const inner = entries.map(([key, item]) => `${language === "python" ? JSON.stringify(key) : key}: ${literal(item, language)}`).join(", ");
  return language === "python" ? `{${inner}}` : `{ ${inner} }`;
}

/**
 * Reads a small coding task: its language, the function's name (as the task names it, else the
 * usual name of what it asks for, written as its language names functions), parameter, return
 * type and examples.
 */
export function readCodeTask(task: string, fallbackName: string): CodeTask {
  const lower = task.toLowerCase();
  const language = languageOf(task);
  const kind = KINDS.find((candidate) => candidate.matches(lower)) ?? SPLIT;
  const named = namedFunction(task);
  const usual = kind.words.length ? joinedName(kind.words, language) : fallbackName;
  const name = named?.name ?? usual;
  const param = named?.param ?? DEFAULT_PARAMS[kind.input];
  const types = TYPES[language];
  const paramType = types[kind.input];
  const returnType = types[kind.output];
  const examples = kind.examples.map(([input, output]) => `${name}(${literal(input, language)}) → ${literal(output, language)}`);
  const guardPython = [`if ${param} is None:`, `    raise TypeError("${name} needs a value")`];
  const guardScript = [`if (${param} == null) throw new TypeError("${name} needs a value");`];
  const body = (version: number): string[] => {
    const summary = task.replace(/\*\//g, "").replace(/"""/g, "'''").replace(/\s+/g, " ").trim();
    if (language === "python") {
      return [
        ...(kind.usesRe ? ["import re", "", ""] : []),
        `def ${name}(${param}: ${paramType}) -> ${returnType}:`,
        `    """${summary}"""`,
        ...[...(version > 1 ? guardPython : []), ...kind.python(param)].map((line) => `    ${line}`),
      ];
    }
    const typed = language === "typescript";
    const type = (annotation: string) => (typed ? annotation : "");
    return [
      typed ? `/** ${summary} */` : `/**\n * ${summary}\n * @param {${paramType}} ${param}\n * @returns {${returnType}}\n */`,
      typed ? `export function ${name}(${param}: ${paramType}): ${returnType} {` : `export function ${name}(${param}) {`,
      ...[...(version > 1 ? guardScript : []), ...kind.script(param, type)].map((line) => `  ${line}`),
      "}",
    ];
  };
  return { kind: kind.key, language, name, param, paramType, returnType, examples, body };
}

/** The examples block of a piece of code, as a comment in its language. */
export function examplesBlock(language: CodeLanguage, examples: string[]): string[] {
  const mark = language === "python" ? "#" : "//";
  return [`${mark} Examples:`, ...examples.map((example) => `${mark} ${example}`)];
}

/** The `name(input) → output` lines in a text: a brief's list, or a code's comments. */
export function examplesIn(text: string): string[] {
  return [...text.matchAll(/^\s*(?:-|#|\/\/)\s*([\p{L}_$][\p{L}\p{N}_$]*\(.*\)\s*→\s*.+?)\s*$/gmu)].map((match) =>
    match[1]!.replace(/\s+/g, " "),
  );
}

/** The language a piece of code is written in, by its syntax. */
export function languageOfCode(code: string): CodeLanguage {
  if (/^\s*def [A-Za-z_]\w*\(/m.test(code)) return "python";
  if (/^export function \w+\([^)]*:[^)]*\)\s*:/m.test(code)) return "typescript";
  return "javascript";
}

/** The name and return type the code declares for its function. */
export function signatureOf(code: string): { name: string | null; returnType: string | null } {
  const python = code.match(/^\s*def ([A-Za-z_]\w*)\(.*\)\s*->\s*(.+):\s*$/m);
  if (python) return { name: python[1]!, returnType: python[2]!.trim() };
  const typed = code.match(/^export function ([\p{L}_$][\p{L}\p{N}_$]*)\(.*\)\s*:\s*(.+?)\s*\{\s*$/mu);
  if (typed) return { name: typed[1]!, returnType: typed[2]! };
  const plain = code.match(/^export function ([\p{L}_$][\p{L}\p{N}_$]*)\(/mu);
  return { name: plain?.[1] ?? null, returnType: code.match(/@returns \{(.+?)\}/)?.[1] ?? null };
}
