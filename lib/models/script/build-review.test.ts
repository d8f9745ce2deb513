import { generateText, isStepCount, tool } from "ai";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { codePrompt } from "@/lib/build-review/prompts";
import { functionName } from "./build-review";
import { createScriptModel } from "./script-model";

/** The code the scripted Coder submits for `task`, in the version asked for, through the AI SDK as a run calls it. */
async function codeWritten(task: string, version: number): Promise<string> {
  const submitted: string[] = [];
  await generateText({
    model: createScriptModel({ name: "coder" }),
    system: "You are Coder, the Developer of this room (persona: coder).",
    prompt: codePrompt({
      task,
      brief: "Handle the edge cases.",
      codeVersion: version - 1,
      round: version,
      maxRounds: 3,
      lastVerdict: null,
    }),
    tools: {
      submit_code: tool({
        inputSchema: z.object({ language: z.string(), code: z.string() }),
        execute: async ({ code }) => {
          submitted.push(code);
          return { ok: true, nodeId: "n1", version };
        },
      }),
    },
    stopWhen: isStepCount(3),
  });
  expect(submitted).toHaveLength(1);
  return submitted[0]!;
}

const IDENTIFIER = /^[\p{ID_Start}$_][\p{ID_Continue}$\u200c\u200d]*$/u;

/** Whether `code` parses as TypeScript, and what its JavaScript, run as a function body, declares. */
function compiled(code: string) {
  const output = ts.transpileModule(code, {
    reportDiagnostics: true,
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext },
  });
  const name = code.match(/^export function (\S+)\(/m)?.[1];
  // The module's one export, declared in a plain function body and handed back to be called.
  const declared = new Function(`${output.outputText.replace(/^export /m, "")}\nreturn ${name};`)() as (input: string) => string[];
  return { diagnostics: output.diagnostics ?? [], name, declared };
}

describe("the scripted Coder's code", () => {
  const TASKS = [
    "Write a function that counts the words in a sentence",
    "2+2",
    "Écris une fonction qui compte les mots d'une phrase",
    "Zähle die Wörter in einem Satz",
    "Delete",
    "new",
    "!!!",
    "",
    "Implement the 3 sum problem",
    "x² + y² for every point",
    "计算句子中的单词",
    "Return the */ end of a comment",
  ];

  it("names its function with a valid identifier and parses, whatever the task says", async () => {
    for (const task of TASKS) {
      for (const version of [1, 2]) {
        const code = await codeWritten(task, version);
        const { diagnostics, name, declared } = compiled(code);
        expect(name, task).toMatch(IDENTIFIER);
        expect(
          diagnostics.map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n")),
          task,
        ).toEqual([]);
        expect(declared("a  b"), task).toEqual(["a", "b"]);
      }
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
