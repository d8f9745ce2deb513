"use client";

import hljs from "highlight.js/lib/core";
import javascript from "highlight.js/lib/languages/javascript";
import python from "highlight.js/lib/languages/python";
import typescript from "highlight.js/lib/languages/typescript";
import { useMemo } from "react";

hljs.registerLanguage("typescript", typescript);
hljs.registerLanguage("javascript", javascript);
hljs.registerLanguage("python", python);

/** Code as a code node shows it: monospace, highlighted, its version beside it. */
export function CodeBlock({ code, version }: { code: string; version: number }) {
  const html = useMemo(() => hljs.highlightAuto(code, ["typescript", "javascript", "python"]).value, [code]);
  return (
    <div className="code-block">
      <span className="code-block__version" data-testid="code-version">
        v{version}
      </span>
      {/* highlight.js escapes the code it is given; the markup is its own spans. */}
      <pre className="code-block__pre nowheel">
        <code className="hljs" dangerouslySetInnerHTML={{ __html: html }} />
      </pre>
    </div>
  );
}
