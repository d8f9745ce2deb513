"use client";

import type { Emitter } from "highlight.js";
import core from "highlight.js/lib/core";
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
import { type ReactNode, memo, useMemo, useState } from "react";
import { apiRequest } from "@/components/room/api";
import { useRoom } from "@/components/room/room-store";
import type { CodeHistory, CodeVersion } from "@/lib/build-review/read-code-versions";

/** A piece of highlighted code: its text, or a scope (keyword, string, …) holding more pieces. */
export type CodeToken = string | { scope: string | null; children: CodeToken[] };

/**
 * Collects highlight.js's token stream as a tree instead of its HTML: the page draws the tokens
 * as React elements, so no markup is ever made from the code (or from anything else).
 */
class TokenEmitter implements Emitter {
  readonly root: { scope: null; children: CodeToken[] } = { scope: null, children: [] };
  private open: { children: CodeToken[] }[] = [this.root];

  private get top() {
    return this.open[this.open.length - 1]!;
  }

  addText(text: string) {
    if (text) this.top.children.push(text);
  }

  startScope(scope: string) {
    const token = { scope, children: [] };
    this.top.children.push(token);
    this.open.push(token);
  }

  endScope() {
    if (this.open.length > 1) this.open.pop();
  }

  /** What highlight.js calls for a mode's scope; the same as `startScope`. */
  openNode(scope: string) {
    this.startScope(scope);
  }

  closeNode() {
    this.endScope();
  }

  __addSublanguage(emitter: Emitter, language: string) {
    if (emitter instanceof TokenEmitter)
      this.top.children.push({ scope: language ? `language:${language}` : null, children: emitter.root.children });
  }

  finalize() {
    this.open = [this.root];
  }

  /** Nothing is rendered as HTML here (see `CodeTokens`). */
  toHTML() {
    return "";
  }
}

/** Our own highlight.js, giving tokens rather than HTML; its languages bring their aliases (ts, py, c++, sh, html, …). */
const hljs = core.newInstance();
hljs.configure({ __emitter: TokenEmitter });
const LANGUAGES = {
  typescript,
  javascript,
  python,
  go,
  rust,
  java,
  c,
  cpp,
  csharp,
  ruby,
  php,
  bash,
  sql,
  json,
  kotlin,
  swift,
  xml,
  css,
  yaml,
};
for (const [name, language] of Object.entries({ ...LANGUAGES, plaintext })) hljs.registerLanguage(name, language);
const GUESSED = ["typescript", "javascript", "python"];

/** The text the tokens hold, in order. */
export function tokenText(tokens: CodeToken[]): string {
  return tokens.map((token) => (typeof token === "string" ? token : tokenText(token.children))).join("");
}

/**
 * The tokens a highlight found, or the code as plain text when highlighting went wrong part way
 * (an embedded language it gave up on, say): what is drawn is always the whole code, as written.
 */
function tokensOf(result: ReturnType<typeof hljs.highlight>, code: string): CodeToken[] {
  if (result.illegal || "errorRaised" in result || !(result._emitter instanceof TokenEmitter)) return [code];
  const tokens = result._emitter.root.children;
  return tokenText(tokens) === code ? tokens : [code];
}

/**
 * Code as highlight.js reads it, in the language it was written in: the one named (by name or
 * alias, any case), plain text for a language it does not know, and a guess among the common
 * ones only when none was named.
 */
export function highlightCode(code: string, language: string | null): { tokens: CodeToken[]; language: string | null } {
  if (language === null || !language.trim()) {
    const guessed = hljs.highlightAuto(code, GUESSED);
    return { tokens: tokensOf(guessed, code), language: guessed.language ?? null };
  }
  const name = language.trim().toLowerCase();
  if (!hljs.getLanguage(name)) return { tokens: [code], language: null };
  return { tokens: tokensOf(hljs.highlight(code, { language: name, ignoreIllegals: true }), code), language: name };
}

/** highlight.js's class for a scope: `hljs-keyword`, `hljs-title function_` for `title.function`, `language-css` for embedded code. */
function scopeClass(scope: string): string {
  if (scope.startsWith("language:")) return `language-${scope.slice("language:".length)}`;
  const [first, ...rest] = scope.split(".");
  return [`hljs-${first}`, ...rest.map((piece, index) => `${piece}${"_".repeat(index + 1)}`)].join(" ");
}

function renderTokens(tokens: CodeToken[]): ReactNode[] {
  return tokens.map((token, index) =>
    typeof token === "string" ? (
      token
    ) : token.scope ? (
      // biome-ignore lint/suspicious/noArrayIndexKey: tokens of one fixed text, never reordered.
      <span key={index} className={scopeClass(token.scope)}>
        {renderTokens(token.children)}
      </span>
    ) : (
      renderTokens(token.children)
    ),
  );
}

/** Highlighted code drawn as React elements: its text is only ever text. */
export const CodeTokens = memo(function CodeTokens({ tokens }: { tokens: CodeToken[] }) {
  return <>{renderTokens(tokens)}</>;
});

/**
 * Code as a code node shows it: monospace, highlighted in its language, with the code version
 * the Coder submitted (`null` for code that is not a build review's). Earlier versions can be
 * picked; they are read from the review's history when first asked for.
 */
export function CodeBlock({
  code,
  language,
  version,
  reviewId,
}: {
  code: string;
  language: string | null;
  version: number | null;
  reviewId: string | null;
}) {
  const roomId = useRoom((state) => state.room.id);
  const [picked, setPicked] = useState<number | null>(null);
  const [history, setHistory] = useState<CodeVersion[]>([]);
  const [problem, setProblem] = useState<string | null>(null);
  const earlier = picked !== null && picked !== version ? history.find((entry) => entry.version === picked) : undefined;
  const shown = earlier ?? { code, language };
  const { tokens } = useMemo(() => highlightCode(shown.code, shown.language), [shown.code, shown.language]);

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
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: the code scrolls within its note; focused, the keyboard scrolls it. */}
      <pre className="code-block__pre nowheel" tabIndex={0}>
        <code className="hljs">
          <CodeTokens tokens={tokens} />
        </code>
      </pre>
    </div>
  );
}
