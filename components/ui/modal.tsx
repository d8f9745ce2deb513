"use client";

import { type ReactNode, useEffect, useRef } from "react";

/**
 * A modal dialog on the browser's own `<dialog>`: shown in the top layer, so nothing on the page
 * (the canvas's overlays, the who-asked-whom graph) can show through it; Escape closes it, focus
 * moves into it and returns to where it was when it closes. A click on the dimmed page outside
 * its box closes it too.
 */
export function Modal({
  label,
  onClose,
  className,
  testId,
  children,
}: {
  label: string;
  onClose: () => void;
  className: string;
  testId?: string;
  children: ReactNode;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const close = useRef(onClose);
  close.current = onClose;
  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    const before = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (!element.open) element.showModal();
    const onCancel = (event: Event) => {
      event.preventDefault();
      close.current();
    };
    // A click whose target is the dialog itself landed on its backdrop, outside the box.
    const onClick = (event: MouseEvent) => {
      if (event.target === element) close.current();
    };
    element.addEventListener("cancel", onCancel);
    element.addEventListener("click", onClick);
    return () => {
      element.removeEventListener("cancel", onCancel);
      element.removeEventListener("click", onClick);
      if (element.open) element.close();
      before?.focus();
    };
  }, []);
  return (
    <dialog ref={dialog} className="modal-dialog" aria-label={label} data-testid={testId}>
      <div className={`modal ${className}`}>{children}</div>
    </dialog>
  );
}
