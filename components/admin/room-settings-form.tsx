"use client";

import { useState } from "react";
import type { RoomSettings } from "@/lib/rooms/room-settings";
import { SETTING_GROUPS } from "./settings-fields";

/** Every setting of a room, grouped by what it governs; `onSave` sends them. */
export function RoomSettingsForm({ initial, onSave }: { initial: RoomSettings; onSave: (settings: RoomSettings) => Promise<void> }) {
  const [settings, setSettings] = useState<RoomSettings>(initial);
  const [saving, setSaving] = useState(false);
  const set = (key: keyof RoomSettings, value: unknown) => setSettings({ ...settings, [key]: value });
  return (
    <form
      className="settings"
      data-testid="admin-settings"
      onSubmit={async (event) => {
        event.preventDefault();
        setSaving(true);
        try {
          await onSave(settings);
        } finally {
          setSaving(false);
        }
      }}
    >
      {SETTING_GROUPS.map((group) => (
        <fieldset key={group.title} className="settings__group">
          <legend>{group.title}</legend>
          {group.fields.map((field) => (
            <label key={field.key} className="settings__field" htmlFor={`setting-${field.key}`}>
              <span>{field.label}</span>
              {field.kind === "number" && (
                <input
                  type="number"
                  id={`setting-${field.key}`}
                  name={field.key}
                  min={field.min}
                  max={field.max}
                  value={settings[field.key] as number}
                  onChange={(event) => set(field.key, Number(event.target.value))}
                />
              )}
              {field.kind === "optional-number" && (
                <input
                  type="number"
                  id={`setting-${field.key}`}
                  name={field.key}
                  min={field.min}
                  max={field.max}
                  step={field.step ?? 1}
                  placeholder="default"
                  value={(settings[field.key] as number | null) ?? ""}
                  onChange={(event) => set(field.key, event.target.value === "" ? null : Number(event.target.value))}
                />
              )}
              {field.kind === "boolean" && (
                <input
                  type="checkbox"
                  id={`setting-${field.key}`}
                  name={field.key}
                  checked={settings[field.key] as boolean}
                  onChange={(event) => set(field.key, event.target.checked)}
                />
              )}
              {field.kind === "choice" && (
                <select
                  id={`setting-${field.key}`}
                  name={field.key}
                  value={settings[field.key] as string}
                  onChange={(event) => set(field.key, event.target.value)}
                >
                  {field.options.map((option) => (
                    <option key={option}>{option}</option>
                  ))}
                </select>
              )}
              {field.kind === "text" && (
                <textarea
                  id={`setting-${field.key}`}
                  name={field.key}
                  value={settings[field.key] as string}
                  onChange={(event) => set(field.key, event.target.value)}
                />
              )}
              {field.kind === "lines" && (
                <textarea
                  id={`setting-${field.key}`}
                  name={field.key}
                  value={(settings[field.key] as string[]).join("\n")}
                  onChange={(event) =>
                    set(
                      field.key,
                      event.target.value
                        .split("\n")
                        .map((line) => line.trim())
                        .filter(Boolean),
                    )
                  }
                />
              )}
              {field.kind === "numbers" && (
                <span className="settings__numbers">
                  {field.keys.map((name) => {
                    const values = settings[field.key] as Record<string, number | undefined>;
                    return (
                      <label key={name} className="settings__number">
                        <span className="muted">{name.replace(/_/g, " ")}</span>
                        <input
                          type="number"
                          name={`${field.key}.${name}`}
                          min={field.min}
                          max={field.max}
                          placeholder={String(field.fallback)}
                          value={values[name] ?? ""}
                          onChange={(event) => {
                            const { [name]: _old, ...rest } = values;
                            set(field.key, event.target.value === "" ? rest : { ...rest, [name]: Number(event.target.value) });
                          }}
                        />
                      </label>
                    );
                  })}
                </span>
              )}
              {(field.kind === "number" || field.kind === "optional-number" || field.kind === "numbers") && field.unit && (
                <span className="muted">{field.unit}</span>
              )}
            </label>
          ))}
        </fieldset>
      ))}
      <button className="button button--primary" type="submit" disabled={saving} data-testid="admin-save-settings">
        Save settings
      </button>
    </form>
  );
}
