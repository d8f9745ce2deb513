import { type Document, LineCounter, isMap, isNode, isScalar, isSeq, parseDocument } from "yaml";
import { z } from "zod";
import { AppError } from "@/lib/errors";

/**
 * A team's configuration file, read as YAML that keeps every node's position: its values are
 * checked with zod schemas, and whatever a schema refuses is refused naming the key, its line and
 * the reason, the key found from the path of the schema's first issue.
 */

/** A configuration file Parley cannot import, naming the key and line at fault. */
export class ConfigImportError extends AppError {
  constructor(
    message: string,
    readonly key: string | null,
    readonly line: number | null,
    readonly column: number | null = null,
  ) {
    super(400, "invalid_config", message, { key, line });
  }

  /** The error for `key` at `line` (and `column`), its message starting with the key and its line. */
  static at(key: string, line: number | null, message: string, column: number | null = null): ConfigImportError {
    return new ConfigImportError(`${key}${line ? ` (line ${line})` : ""}: ${message}`, key, line, column);
  }
}

export type Path = (string | number)[];

/** Where a node starts in the file, counting from 1. */
export interface Position {
  line: number;
  column: number;
}

export function pathName(path: Path): string {
  return path.reduce<string>((name, part) => (typeof part === "number" ? `${name}[${part}]` : name ? `${name}.${part}` : part), "");
}

/** How deeply aliases may expand when a part of the file is read as plain data; more is the file's fault. */
const MAX_ALIAS_COUNT = 100;

export class ConfigFile {
  private constructor(
    private readonly doc: Document,
    private readonly lines: LineCounter,
  ) {}

  /** The file's YAML, or its first syntax error with the line it is on. */
  static parse(text: string): ConfigFile {
    const lines = new LineCounter();
    const doc = parseDocument(text, { lineCounter: lines, prettyErrors: true, uniqueKeys: true });
    const error = doc.errors[0];
    if (error) {
      const line = error.linePos?.[0]?.line ?? null;
      const reason = error.message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
      throw new ConfigImportError(`The file is not valid YAML${line ? ` (line ${line})` : ""}: ${reason}`, null, line);
    }
    return new ConfigFile(doc, lines);
  }

  private node(path: Path): unknown {
    return path.length ? this.doc.getIn(path, true) : this.doc.contents;
  }

  /** Where the node at `path` starts, or, for a key the file does not have, the nearest node holding it. */
  position(path: Path): Position | null {
    for (let length = path.length; length >= 0; length--) {
      const node = this.node(path.slice(0, length)) as { range?: [number, number, number] } | undefined;
      if (node?.range) {
        const { line, col } = this.lines.linePos(node.range[0]);
        return { line, column: col };
      }
    }
    return null;
  }

  line(path: Path): number | null {
    return this.position(path)?.line ?? null;
  }

  fail(path: Path, message: string): never {
    const position = this.position(path);
    throw ConfigImportError.at(pathName(path), position?.line ?? null, message, position?.column ?? null);
  }

  /** The value at `path` as plain data (lists as arrays, mappings as objects); undefined where the file has none. */
  value(path: Path): unknown {
    const node = this.node(path);
    if (!isNode(node)) return node;
    try {
      return node.toJS(this.doc, { maxAliasCount: MAX_ALIAS_COUNT });
    } catch (error) {
      const reason = (error as Error).message.split("\n")[0]!;
      throw new ConfigImportError(`The file could not be read: ${reason}`, null, null);
    }
  }

  /**
   * The value at `path` as `schema` reads it. A value the schema refuses is refused at the key
   * its first issue names (the deepest the file has), with the issue's message as the reason.
   */
  read<S extends z.ZodType>(path: Path, schema: S): z.output<S> {
    const result = schema.safeParse(this.value(path));
    if (result.success) return result.data;
    const issue = result.error.issues[0]!;
    this.fail([...path, ...issue.path.filter((part): part is string | number => typeof part !== "symbol")], issue.message);
  }

  /** Whether the file has a value (other than null) at `path`. */
  has(path: Path): boolean {
    const value = this.doc.getIn(path);
    return value !== undefined && value !== null;
  }

  keys(path: Path): string[] {
    const node = this.node(path);
    if (!isMap(node)) return [];
    return node.items.map((pair) => (isScalar(pair.key) ? String(pair.key.value) : String(pair.key)));
  }

  isMapping(path: Path): boolean {
    return isMap(this.node(path));
  }

  isList(path: Path): boolean {
    return isSeq(this.node(path));
  }

  length(path: Path): number {
    const node = this.node(path);
    return isSeq(node) ? node.items.length : 0;
  }
}

/** A schema for a key that may be left out or null (read as undefined). */
function orAbsent<S extends z.ZodType>(schema: S) {
  return schema.nullish().transform((value) => value ?? undefined);
}

/** Text (a number written bare is read as its text). */
export const optionalText = orAbsent(z.union([z.string(), z.number()], { error: "must be text" }).transform(String));

function ranged(kind: "whole number" | "number", min: number, max: number) {
  const error = (issue: { input?: unknown }) => `must be a ${kind} from ${min} to ${max}, not ${JSON.stringify(issue.input)}`;
  return (kind === "whole number" ? z.int({ error }) : z.number({ error })).min(min, { error }).max(max, { error });
}

export const optionalWholeNumber = (min: number, max: number) => orAbsent(ranged("whole number", min, max));

export const optionalNumber = (min: number, max: number) => orAbsent(ranged("number", min, max));

/** Text, or a list of at most `max` texts (each at most 200 characters): always read as a list. */
export function optionalTexts(max: number) {
  const error = `must be text or a list of 1 to ${max} texts (each at most 200 characters)`;
  const text = z.string({ error }).min(1, { error }).max(200, { error });
  return orAbsent(z.union([text.transform((one) => [one]), z.array(text, { error }).min(1, { error }).max(max, { error })], { error }));
}

export function optionalChoice<const T extends readonly [string, ...string[]]>(choices: T) {
  const listed = choices.map((choice) => `"${choice}"`).join(", ");
  return orAbsent(z.enum(choices, { error: (issue) => `must be one of ${listed}, not ${JSON.stringify(issue.input)}` }));
}
