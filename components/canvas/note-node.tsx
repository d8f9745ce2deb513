"use client";

import { Handle, type NodeProps } from "@xyflow/react";
import { memo, useEffect, useRef, useState } from "react";
import { useRoom } from "@/components/room/room-store";
import { LIMITS } from "@/lib/protocol";
import { CodeBlock } from "./code-block";
import type { NoteFlowNode } from "./flow-types";
import { kindLabel, noteTitle } from "./canvas-names";
import { NOTE_SIDES } from "./note-handles";
import { readableInk } from "@/components/ui/readable-color";

/**
 * A sticky note or an agent's piece of work on the canvas. Double-click to edit when allowed.
 * Zoomed out past reading, CSS shows its title over it in type that grows as the view shrinks
 * (see `READING_ZOOM`); the note keeps its size, so nothing around it moves.
 */
function NoteNodeComponent({ id, data, selected }: NodeProps<NoteFlowNode>) {
  const { node, accent, editable, highlighted, onSaveText } = data;
  // The code a build review's Coder submitted: its version counts submissions, not the node's moves and edits.
  const submitted = useRoom((state) => state.codeNodes[id]);
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(node.text);
  const textarea = useRef<HTMLTextAreaElement>(null);

  useEffect(() => {
    if (!editing) setDraft(node.text);
  }, [node.text, editing]);
  useEffect(() => {
    if (editing) textarea.current?.focus();
  }, [editing]);

  // The canvas's wrapper around the note is what Tab and the arrow keys focus: Enter there edits.
  const element = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const wrapper = element.current?.closest<HTMLElement>(".react-flow__node");
    if (!wrapper || !editable) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== "Enter" || event.target !== wrapper) return;
      event.preventDefault();
      setEditing(true);
    };
    wrapper.addEventListener("keydown", onKey);
    return () => wrapper.removeEventListener("keydown", onKey);
  }, [editable]);

  const save = () => {
    setEditing(false);
    if (draft !== node.text) onSaveText(id, draft);
  };

  const isAgent = node.authorKind === "agent";
  const background = node.color ?? (isAgent ? "#ffffff" : "#fff3bf");
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: the note's wrapper, focusable and named by the canvas, opens the editor on Enter; a double-click is the pointer's way.
    <div
      ref={element}
      className={`note${selected ? " note--selected" : ""}${highlighted ? " note--highlighted" : ""}${isAgent ? " note--agent" : ""}`}
      style={{ background, borderColor: accent, width: node.width ?? undefined }}
      data-testid={`note-${id}`}
      data-kind={node.kind}
      onDoubleClick={(event) => {
        if (!editable) return;
        event.stopPropagation();
        setEditing(true);
      }}
    >
      {NOTE_SIDES.map((side) => (
        <Handle key={side.id} id={side.id} type="source" position={side.position} className="note__handle" />
      ))}
      {node.kind !== "note" && (
        <div className="note__kind" style={{ color: readableInk(accent, background) }}>
          {kindLabel(node.kind)}
        </div>
      )}
      {editing ? (
        <textarea
          ref={textarea}
          className="note__editor nodrag nowheel"
          data-testid="note-editor"
          value={draft}
          maxLength={LIMITS.noteText}
          onChange={(event) => setDraft(event.target.value)}
          onBlur={save}
          onKeyDown={(event) => {
            if (event.key === "Escape") {
              setDraft(node.text);
              setEditing(false);
              element.current?.closest<HTMLElement>(".react-flow__node")?.focus();
            }
            if (event.key === "Enter" && (event.metaKey || event.ctrlKey)) save();
          }}
        />
      ) : node.kind === "code" ? (
        <CodeBlock
          code={node.text}
          language={submitted?.language ?? null}
          version={submitted?.version ?? null}
          reviewId={submitted?.reviewId ?? null}
        />
      ) : (
        <div className="note__text" data-testid="note-text">
          {node.text || <span className="note__placeholder">{editable ? "Double-click to write" : "Empty note"}</span>}
        </div>
      )}
      <div className="note__title" aria-hidden="true" style={{ background, borderColor: accent }}>
        <span className="note__title-text" data-testid="note-title">
          {node.kind !== "note" && (
            <span className="note__title-kind" style={{ color: readableInk(accent, background) }}>
              {kindLabel(node.kind)}
            </span>
          )}
          {noteTitle(node, 120) || node.authorName}
        </span>
      </div>
      <div className="note__author">
        <span className="note__dot" style={{ background: accent }} />
        {node.authorName}
      </div>
    </div>
  );
}

export const NoteNode = memo(NoteNodeComponent);
