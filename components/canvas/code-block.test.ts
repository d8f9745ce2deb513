import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { type RoomState, applyRoomEvent, initialRoomState } from "@/components/room/room-state";
import { FIXTURE_TIME, nodeDto, roomSnapshot, storedEvent } from "@/test/builders";
import { CodeTokens, highlightCode, tokenText } from "./code-block";

/** The code as the page draws it. */
function drawn(code: string, language: string | null): { markup: string; language: string | null; text: string } {
  const { tokens, language: shown } = highlightCode(code, language);
  return { markup: renderToStaticMarkup(createElement(CodeTokens, { tokens })), language: shown, text: tokenText(tokens) };
}

describe("highlightCode", () => {
  it("highlights in the language the Coder named, by name or alias, in any case", () => {
    const python = drawn("def count(words):\n    return len(words)", "Python");
    expect(python.language).toBe("python");
    expect(python.markup).toContain('<span class="hljs-keyword">def</span>');
    expect(drawn("fn main() { let x = 1; }", "rust").markup).toContain('<span class="hljs-keyword">fn</span>');
    expect(drawn("const x: number = 1;", "ts")).toMatchObject({ language: "ts", markup: expect.stringContaining("hljs-keyword") });
    // A tiered scope gets highlight.js's own classes.
    expect(drawn("function count() {}", "javascript").markup).toContain('<span class="hljs-title function_">count</span>');
  });

  it("does not guess when the language named is one it does not know: plain, escaped text", () => {
    expect(drawn("if a < b then <script>", "brainfudge")).toEqual({
      markup: "if a &lt; b then &lt;script&gt;",
      language: null,
      text: "if a < b then <script>",
    });
  });

  it("guesses among the common languages only for code with no language", () => {
    expect(highlightCode("def count(words):\n    return len(words)\n", null).language).toBe("python");
  });

  it("draws hostile code as text on every path: a named language, one it guesses, plain text", () => {
    const hostile = [
      "</code><img src=x onerror=alert(1)>",
      "<script>alert(document.cookie)</script>",
      'const s = "</code><img src=x onerror=alert(1)>"; // <script>alert(1)</script>',
      '<div onmouseover="alert(1)">&lt;b&gt;</div>',
    ];
    for (const code of hostile) {
      for (const language of ["html", "typescript", "python", null, "brainfudge"]) {
        const { markup, text } = drawn(code, language);
        const where = `${language}: ${code}`;
        // Every character of the code is there as text, and the only elements are highlight.js's spans.
        expect(text, where).toBe(code);
        expect(markup.replace(/<span class="[a-z0-9_ -]+">|<\/span>/g, ""), where).not.toMatch(/<|>/);
        expect(markup, where).not.toMatch(/<(img|script|div|code)\b/i);
      }
    }
    // The named-language path does read the markup as HTML tokens (it is highlighted), and still only draws text.
    expect(drawn(hostile[0]!, "html").markup).toContain('<span class="hljs-tag">&lt;<span class="hljs-name">img</span>');
  });
});

describe("a code node's version", () => {
  const snapshot = roomSnapshot({
    nodes: [nodeDto({ id: "code", kind: "code", text: "v1", version: 1 })],
    codeNodes: [{ nodeId: "code", reviewId: "rev", version: 1, language: "python" }],
  });

  const apply = (state: RoomState, event: Parameters<typeof applyRoomEvent>[1]) => {
    const outcome = applyRoomEvent(state, event);
    if (outcome.kind !== "applied") throw new Error(outcome.kind);
    return outcome.state;
  };

  it("is the version the Coder submitted, not the node's, which every move bumps", () => {
    let state = initialRoomState(snapshot, null);
    expect(state.codeNodes.code).toEqual({ nodeId: "code", reviewId: "rev", version: 1, language: "python" });
    state = apply(
      state,
      storedEvent("node.updated", { nodeId: "code", changes: { x: 40, y: 80 }, version: 2, updatedAt: FIXTURE_TIME }, { seq: 2 }),
    );
    state = apply(
      state,
      storedEvent("canvas.tidied", { positions: [{ nodeId: "code", x: 0, y: 0, version: 3 }], updatedAt: FIXTURE_TIME }, { seq: 3 }),
    );
    expect(state.nodes.code!.version).toBe(3);
    expect(state.codeNodes.code!.version).toBe(1);
    state = apply(state, storedEvent("review.code", { reviewId: "rev", nodeId: "code", version: 2, language: "typescript" }, { seq: 4 }));
    expect(state.codeNodes.code).toEqual({ nodeId: "code", reviewId: "rev", version: 2, language: "typescript" });
  });
});
