"use client";

import { useEffect, useState } from "react";
import Markdown from "react-markdown";
import { useRoom } from "@/components/room/room-store";
import { Modal } from "@/components/ui/modal";
import type { BrainstormDto } from "@/lib/protocol/brainstorm";

export function deliverableUrl(roomId: string, brainstormId: string): string {
  return `/api/rooms/${roomId}/brainstorms/${brainstormId}/deliverable`;
}

/**
 * The brainstorm's final deliverable, rendered from its markdown (as React elements: no HTML in
 * it is ever rendered), with a download of the `.md` file.
 */
export function DeliverableView({ brainstorm, onClose }: { brainstorm: BrainstormDto; onClose: () => void }) {
  const roomId = useRoom((state) => state.room.id);
  const [text, setText] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const url = deliverableUrl(roomId, brainstorm.id);
  useEffect(() => {
    let live = true;
    fetch(url)
      .then(async (response) => {
        if (!response.ok) throw new Error(`The deliverable could not be read (${response.status}).`);
        const body = await response.text();
        if (live) setText(body);
      })
      .catch((problem: Error) => live && setError(problem.message));
    return () => {
      live = false;
    };
  }, [url]);
  return (
    <Modal label="The deliverable" onClose={onClose} className="deliverable" testId="deliverable">
      <div className="deliverable__bar">
        <h2 className="deliverable__title">Deliverable</h2>
        <a className="button" href={url} download>
          Download .md
        </a>
        <button type="button" className="button" onClick={onClose} data-testid="close-deliverable">
          Close
        </button>
      </div>
      {error && <p role="alert">{error}</p>}
      {text === null && !error && <p>Loading…</p>}
      {text !== null && (
        <article className="deliverable__body" data-testid="deliverable-body">
          <Markdown skipHtml>{text}</Markdown>
        </article>
      )}
    </Modal>
  );
}
