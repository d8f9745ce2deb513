import { createElement } from "react";
import { renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { LocalTime } from "./local-time";

describe("LocalTime", () => {
  it("is written by the server in UTC whatever its own clock, zone and format say, so the browser hydrates the same text", () => {
    const markup = renderToString(
      createElement(LocalTime, { iso: "2026-03-04T05:06:07.890Z", format: () => `${Date.now()} in the server's zone` }),
    );
    expect(markup).toBe('<time dateTime="2026-03-04T05:06:07.890Z">05:06:07 UTC</time>');
  });
});
