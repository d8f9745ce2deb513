"use client";

import { type RefObject, useEffect, useMemo, useState } from "react";

/**
 * Brings out the links of the note under the pointer, the note with the keyboard's focus, and the
 * selected notes: far out, links are drawn faintly so that the titles read over them, and these are
 * drawn in full. Written as one style rule, so that no link is drawn again when the pointer moves.
 */
export function LinkFocus({
  target,
  links,
  selected,
}: {
  target: RefObject<HTMLDivElement | null>;
  links: readonly { id: string; source: string; target: string }[];
  selected: readonly string[];
}) {
  const [pointed, setPointed] = useState<string | null>(null);
  const [focused, setFocused] = useState<string | null>(null);
  useEffect(() => {
    const element = target.current;
    if (!element) return;
    const noteIdOf = (event: Event) =>
      (event.target as HTMLElement | null)?.closest?.<HTMLElement>(".react-flow__node")?.dataset.id ?? null;
    const over = (event: Event) => setPointed(noteIdOf(event));
    const leave = () => setPointed(null);
    const focusIn = (event: Event) => setFocused(noteIdOf(event));
    const focusOut = () => setFocused(null);
    element.addEventListener("pointerover", over);
    element.addEventListener("pointerleave", leave);
    element.addEventListener("focusin", focusIn);
    element.addEventListener("focusout", focusOut);
    return () => {
      element.removeEventListener("pointerover", over);
      element.removeEventListener("pointerleave", leave);
      element.removeEventListener("focusin", focusIn);
      element.removeEventListener("focusout", focusOut);
    };
  }, [target]);
  const rule = useMemo(() => {
    const notes = new Set([pointed, focused, ...selected].filter((id): id is string => id !== null));
    if (notes.size === 0) return "";
    const ids = links.filter((link) => notes.has(link.source) || notes.has(link.target)).map((link) => link.id);
    if (ids.length === 0) return "";
    const selectors = ids.map((id) => `.canvas.canvas .react-flow__edge[data-id="${CSS.escape(id)}"]`);
    return `${selectors.join(",\n")} { --link-opacity: 1; --link-width: 3px; }\n${selectors
      .map((selector) => `${selector} .react-flow__edge-path`)
      .join(",\n")} { stroke: var(--accent) !important; }`;
  }, [pointed, focused, selected, links]);
  return rule ? <style data-testid="link-focus">{rule}</style> : null;
}
