import { type Document, type LineCounter, isMap, isNode, isScalar, isSeq } from "yaml";
import { AppError } from "@/lib/errors";

/**
 * Reading a team's configuration file with the line of every key at hand, so that whatever is
 * wrong with it is refused naming the key and its line.
 */

/** A configuration file Parley cannot import, naming the key and line at fault. */
export class ConfigImportError extends AppError {
  constructor(
    message: string,
    readonly key: string | null,
    readonly line: number | null,
  ) {
    super(400, "invalid_config", message, { key, line });
  }

  /** The error for `key` at `line`, its message starting with both. */
  static at(key: string, line: number | null, message: string): ConfigImportError {
    return new ConfigImportError(`${key}${line ? ` (line ${line})` : ""}: ${message}`, key, line);
  }
}

export type Path = (string | number)[];

export function pathName(path: Path): string {
  return path.reduce<string>((name, part) => (typeof part === "number" ? `${name}[${part}]` : name ? `${name}.${part}` : part), "");
}

export class Reader {
  constructor(
    private readonly doc: Document,
    private readonly lines: LineCounter,
  ) {}

  line(path: Path): number | null {
    for (let length = path.length; length >= 0; length--) {
      const node = this.doc.getIn(path.slice(0, length), true) as { range?: [number, number, number] } | undefined;
      if (node && node.range) return this.lines.linePos(node.range[0]).line;
    }
    return null;
  }

  fail(path: Path, message: string): never {
    throw ConfigImportError.at(pathName(path), this.line(path), message);
  }

  value(path: Path): unknown {
    return this.doc.getIn(path);
  }

  /** The value at `path` as plain data: lists as arrays, mappings as objects. */
  plain(path: Path): unknown {
    const node = this.doc.getIn(path, true);
    return isNode(node) ? node.toJS(this.doc, { maxAliasCount: 100 }) : node;
  }

  keys(path: Path): string[] {
    const node = path.length ? this.doc.getIn(path, true) : this.doc.contents;
    if (!isMap(node)) return [];
    return node.items.map((pair) => (isScalar(pair.key) ? String(pair.key.value) : String(pair.key)));
  }

  isMapping(path: Path): boolean {
    return isMap(path.length ? this.doc.getIn(path, true) : this.doc.contents);
  }

  length(path: Path): number {
    const node = this.doc.getIn(path, true);
    return isSeq(node) ? node.items.length : 0;
  }

  isList(path: Path): boolean {
    return isSeq(this.doc.getIn(path, true));
  }

  optionalString(path: Path): string | undefined {
    const value = this.value(path);
    if (value === undefined || value === null) return undefined;
    if (typeof value !== "string" && typeof value !== "number") this.fail(path, "must be text");
    return String(value);
  }

  optionalInt(path: Path, min: number, max: number): number | undefined {
    const value = this.value(path);
    if (value === undefined || value === null) return undefined;
    if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
      this.fail(path, `must be a whole number from ${min} to ${max}, not ${JSON.stringify(value)}`);
    }
    return value;
  }

  optionalNumber(path: Path, min: number, max: number): number | undefined {
    const value = this.value(path);
    if (value === undefined || value === null) return undefined;
    if (typeof value !== "number" || !Number.isFinite(value) || value < min || value > max) {
      this.fail(path, `must be a number from ${min} to ${max}, not ${JSON.stringify(value)}`);
    }
    return value;
  }

  /** Text, or a list of at most `max` texts: always a list. */
  optionalTexts(path: Path, max: number): string[] | undefined {
    const value = this.value(path);
    if (value === undefined || value === null) return undefined;
    const node = this.doc.getIn(path, true);
    const list: unknown[] = isSeq(node) ? node.items.map((item) => (isScalar(item) ? item.value : item)) : [value];
    if (
      list.length === 0 ||
      list.length > max ||
      !list.every((item) => typeof item === "string" && item.length > 0 && item.length <= 200)
    ) {
      this.fail(path, `must be text or a list of 1 to ${max} texts (each at most 200 characters)`);
    }
    return list as string[];
  }

  optionalChoice<T extends string>(path: Path, choices: readonly T[]): T | undefined {
    const value = this.value(path);
    if (value === undefined || value === null) return undefined;
    if (typeof value !== "string" || !choices.includes(value as T)) {
      this.fail(path, `must be one of ${choices.map((choice) => `"${choice}"`).join(", ")}, not ${JSON.stringify(value)}`);
    }
    return value as T;
  }
}
