"use client";

import { useState } from "react";
import { useAdminQuery } from "./admin-api";

/** What a picker chose: the value a filter sends, and how the chip names it. */
export interface PickerChoice {
  value: string;
  label: string;
}

/**
 * Picks one of many by typing part of its name: the server answers a few matches at a time (an
 * instance may have thousands), read only while the list is open. Shows the choice as a chip
 * with a way to clear it. `testId` names the input (`<testId>-picker`) and the chip (`<testId>-filter`).
 */
export function SearchPicker<T>({
  chosen,
  onChange,
  label,
  placeholder,
  testId,
  url,
  optionsOf,
  empty,
}: {
  chosen: PickerChoice | null;
  onChange: (choice: PickerChoice | null) => void;
  label: string;
  placeholder: string;
  testId: string;
  /** Where to read the matches of what was typed (trimmed; empty for the first few). */
  url: (text: string) => string;
  optionsOf: (answer: T) => (PickerChoice & { detail?: string })[];
  /** Said when nothing matches. */
  empty: string;
}) {
  const [text, setText] = useState("");
  const [open, setOpen] = useState(false);
  const { data } = useAdminQuery<T>(url(text.trim()), { enabled: open && !chosen });
  if (chosen) {
    return (
      <span className="admin-chip" data-testid={`${testId}-filter`}>
        {label}: {chosen.label}
        <button type="button" className="link-button" aria-label={`Any ${label.toLowerCase()}`} onClick={() => onChange(null)}>
          ×
        </button>
      </span>
    );
  }
  const options = data ? optionsOf(data) : null;
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: focus leaving the whole picker (its input and its choices) closes the list.
    <div className="admin-picker" onBlur={(event) => !event.currentTarget.contains(event.relatedTarget) && setOpen(false)}>
      <input
        value={text}
        placeholder={placeholder}
        aria-label={label}
        data-testid={`${testId}-picker`}
        onFocus={() => setOpen(true)}
        onChange={(event) => {
          setText(event.target.value);
          setOpen(true);
        }}
      />
      {open && options && (
        <ul className="admin-picker__list" aria-label={`${label}: choices`}>
          {options.length === 0 && <li className="muted">{empty}</li>}
          {options.map((option) => (
            <li key={option.value}>
              <button
                type="button"
                onClick={() => {
                  onChange({ value: option.value, label: option.label });
                  setText("");
                  setOpen(false);
                }}
              >
                {option.label} {option.detail && <span className="muted">· {option.detail}</span>}
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
