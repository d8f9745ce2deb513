"use client";

import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import c from "highlight.js/lib/languages/c";
import cpp from "highlight.js/lib/languages/cpp";
import csharp from "highlight.js/lib/languages/csharp";
import css from "highlight.js/lib/languages/css";
import go from "highlight.js/lib/languages/go";
import java from "highlight.js/lib/languages/java";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import kotlin from "highlight.js/lib/languages/kotlin";
import php from "highlight.js/lib/languages/php";
import plaintext from "highlight.js/lib/languages/plaintext";
import python from "highlight.js/lib/languages/python";
import ruby from "highlight.js/lib/languages/ruby";
import rust from "highlight.js/lib/languages/rust";
import sql from "highlight.js/lib/languages/sql";
import swift from "highlight.js/lib/languages/swift";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";
import { useMemo, useState } from "react";
import { apiRequest } from "@/components/room/api";
import { useRoom } from "@/components/room/room-store";
import type { CodeHistory, CodeVersion } from "@/lib/build-review/read-code-versions";

/** The languages a Coder is likely to write in; each brings its aliases (ts, py, c++, sh, html, …). */
const LANGUAGES = { typescript, javascript, python, go, rust, java, c, cpp, csharp, ruby, php, bash, sql, json, kotlin, swift, xml, css, yaml };
for (const [name, language] of Object.entries({ ...LANGUAGES, plaintext })) hljs.registerLanguage(name, language);
const GUESSED = ["typescript", "javascript", "python"];

/**
 * Code as highlight.js marks it up, in the language it was written in: the one named (by name
 * or alias, any case), plain text for a language it does not know, and a guess among the common
 * ones only when none was named. highlight.js escapes the code; the markup is its own spans.
 */
export function highlightCode(code: string, language: string | null): { html: string; language: string | null } {
  if (language === null || !language.trim()) {
    const guessed = hljs.highlightAuto(code, GUESSED);
    return { html: guessed.value, language: guessed.language ?? null };
  }
  const name = language.trim().toLowerCase();
  if (!hljs.getLanguage(name)) return { html: hljs.highlight(code, { language: "plaintext" }).value, language: null };
  return { html: hljs.highlight(code, { language: name, ignoreIllegals: true }).value, language: name };
}

/**
 * Code as a code node shows it: monospace, highlighted in its language, with the code version
 * the Coder submitted (`null` for code that is not a build review's). Earlier versions can be
 * picked; they are read from the review's history when first asked for.
 */
export function CodeBlock({ code, language, version, reviewId }: { code: string; language: string | null; version: number | null; reviewId: string | null }) {
  const roomId = useRoom((state) => state.room.id);
  const [picked, setPicked] = useState<number | null>(null);
  const [history, setHistory] = useState<CodeVersion[]>([]);
  const [problem, setProblem] = useState<string | null>(null);
  const earlier = picked !== null && picked !== version ? history.find((entry) => entry.version === picked) : undefined;
  const shown = earlier ?? { code, language };
  const { html } = useMemo(() => highlightCode(shown.code, shown.language), [shown.code, shown.language]);

  const pick = (next: number) => {
    setProblem(null);
    setPicked(next === version ? null : next);
    if (next === version || history.some((entry) => entry.version === next)) return;
    apiRequest<{ code: CodeHistory }>(`/api/rooms/${roomId}/build-reviews/${reviewId}/code`, "GET")
      .then((answer) => setHistory(answer.code.versions))
      .catch((error: Error) => setProblem(error.message));
  };

  const loading = picked !== null && picked !== version && !earlier && !problem;
  return (
    <div className="code-block" data-testid="code-block" data-language={shown.language ?? ""}>
      <div className="code-block__head">
        {shown.language && <span className="code-block__language">{shown.language}</span>}
        {version !== null && (
          <span className="code-block__version" data-testid="code-version">
            v{earlier ? earlier.version : version}
          </span>
        )}
        {version !== null && version > 1 && reviewId && (
          <select
            className="code-block__versions nodrag"
            data-testid="code-versions"
            aria-label="Show a version of the code"
            value={picked ?? version}
            onChange={(event) => pick(Number(event.target.value))}
            onDoubleClick={(event) => event.stopPropagation()}
          >
            {Array.from({ length: version }, (_, index) => version - index).map((option) => (
              <option key={option} value={option}>
                {option === version ? `v${option} (latest)` : `v${option}`}
              </option>
            ))}
          </select>
        )}
      </div>
      {(loading || problem) && <div className="code-block__note">{problem ?? "Reading that version…"}</div>}
      {/* highlight.js escapes the code it is given; the markup is its own spans. */}
      <pre className="code-block__pre nowheel">
        <code className="hljs" dangerouslySetInnerHTML={{ __html: html }} />
      </pre>
    </div>
  );
}
