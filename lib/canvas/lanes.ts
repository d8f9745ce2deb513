import { type Box, type Point, boxOf, shapeOf } from "./free-spot";

/**
 * The canvas arranged in lanes: one lane per author (an agent's or a person's work), or per stage
 * of a brainstorm, side by side, each lane's notes in creation order filling its columns row by row.
 * Every note takes one cell of the same size, so nothing can overlap and the whole room fits the
 * view at a zoom where each title can still be read; a lane can be folded into one summary card.
 */
export const LANE_CELL = { width: 220, height: 150 } as const;
/**
 * The widths a cell may take: the narrowest packs most, wider ones give each title more of a line when
 * the view has room across; the arrangement takes the one that shows the most of every title.
 */
export const LANE_CELL_WIDTHS = [220, 260, 300] as const;
/** The heights a cell may take: shorter cells fit more rows into a short view (a phone's). */
const LANE_CELL_HEIGHTS = [150, 120, 96] as const;
/** A title's line on screen: 11.5 px type on lines of 1.12. */
const TITLE_LINE = 12.9;
/** A title's padding and border on screen, above and below its lines. */
const TITLE_CHROME = 6;

/** How far (in the canvas's units) a title of `lines` lines reaches below its note's top when zoomed out to `zoom`. */
export function titleDepth(lines: number, zoom: number): number {
  return Math.ceil((lines * TITLE_LINE + TITLE_CHROME) / zoom);
}

/** How many whole lines of title a cell `height` high holds on screen at `zoom`, up to three. */
export function titleLines(height: number, zoom: number): number {
  return Math.max(0, Math.min(3, Math.floor((height * zoom - TITLE_CHROME) / TITLE_LINE)));
}
/** Gaps between cells and between lanes: links run along them, clear of the notes. */
const LANE_GAP = { x: 32, y: 28, lane: 64 } as const;
/** On screen, the lane headings keep at least this height (a 44 px target and its border). */
const HEADER_SCREEN = 50;
/** At reading zoom, the headings take this much of the canvas. */
const HEADER_MIN = 72;
/** Room for rounding: the view given is what is left once the fitting's own margins are taken off. */
const FIT_PADDING = 0.02;
const MAX_ZOOM = 1.1;
/**
 * The zoom below which a note shows its title in type that keeps its size on screen, instead of its
 * text drawn at the view's scale.
 */
export const READING_ZOOM = 0.6;
/**
 * Stacked lanes (a narrow view) are never drawn closer than this: below the reading zoom, so every
 * note shows its title in type of a readable size rather than its text shrunk to the view.
 */
export const STACKED_MAX_ZOOM = 0.58;
/** On screen, a folded lane's card in stacked lanes: its toggle's 44 px and three lines of 12 px type. */
const CARD_SCREEN = 60;
/** What a title must show on screen to count as read: this many characters on each of two whole lines. */
const READABLE_LINE = 14;

export interface LaneNote {
  id: string;
  kind: string;
  text: string;
  x: number;
  y: number;
  authorId: string;
  authorName: string;
  createdAt: string;
}

export interface Lane {
  key: string;
  name: string;
  /** The lane's notes, oldest first. */
  noteIds: string[];
  collapsed: boolean;
  columns: number;
  /** Where the lane's heading is drawn: across the lane's width, just above its first row. */
  header: Box;
  /** Where its notes (or, collapsed, its summary card) are drawn. */
  body: Box;
}

export interface LaneArrangement {
  lanes: Lane[];
  /**
   * Whether the lanes run one below another (a narrow view), each a band the view's width, a folded
   * lane one card holding its heading; otherwise they stand side by side.
   */
  stacked: boolean;
  /** Where each shown note's top-left corner goes; notes of a collapsed lane have none. */
  positions: Map<string, Point>;
  /** The lane each note is in. */
  laneOf: Map<string, string>;
  /** The zoom the whole arrangement fits the view at. */
  fitZoom: number;
  /** Every note's cell. */
  cell: { width: number; height: number };
}

/** Brainstorm stage headings: the node kind that opens a stage's lane. */
const STAGE_KIND = "stage";

interface Group {
  key: string;
  name: string;
  notes: LaneNote[];
}

function byAge(a: LaneNote, b: LaneNote): number {
  return a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * Which lane each note belongs to. A brainstorm writes each stage's work below that stage's heading:
 * a note at or right of a heading, and below it, is in the stage of the nearest such heading. Every
 * other note is in its author's lane.
 */
export function groupIntoLanes(notes: readonly LaneNote[]): Group[] {
  const headings = notes.filter((note) => note.kind === STAGE_KIND);
  const groups = new Map<string, Group>();
  const add = (key: string, name: string, note: LaneNote) => {
    const group = groups.get(key) ?? { key, name, notes: [] };
    group.notes.push(note);
    groups.set(key, group);
  };
  for (const note of notes) {
    let stage: LaneNote | null = null;
    for (const heading of headings) {
      if (heading.x > note.x + 1 || heading.y > note.y + 1) continue;
      if (!stage || heading.y > stage.y + 1 || (Math.abs(heading.y - stage.y) <= 1 && heading.x > stage.x)) stage = heading;
    }
    if (stage) add(`stage:${stage.id}`, stage.text.split("\n")[0]!.trim() || "Stage", note);
    else add(`author:${note.authorId}`, note.authorName, note);
  }
  return [...groups.values()]
    .map((group) => ({ ...group, notes: group.notes.sort(byAge) }))
    .sort((a, b) => byAge(a.notes[0]!, b.notes[0]!));
}

function span(cells: number, cell: number, gap: number): number {
  return cells * cell + Math.max(0, cells - 1) * gap;
}

interface Shape {
  columns: number[];
  rows: number;
  width: number;
  body: number;
}

function shapeFor(groups: readonly Group[], collapsed: ReadonlySet<string>, rows: number, cell: { width: number; height: number }): Shape {
  // A folded lane keeps two columns (one if it holds a single note): its card's summary needs the width.
  const columns = groups.map((group) =>
    collapsed.has(group.key) ? Math.min(2, group.notes.length) || 1 : Math.max(1, Math.ceil(group.notes.length / rows)),
  );
  const used = Math.max(
    1,
    ...groups.map((group, index) => (collapsed.has(group.key) ? 1 : Math.ceil(group.notes.length / columns[index]!))),
  );
  const width =
    columns.reduce((sum, count) => sum + span(count, cell.width, LANE_GAP.x), 0) + Math.max(0, groups.length - 1) * LANE_GAP.lane;
  return { columns, rows: used, width, body: span(used, cell.height, LANE_GAP.y) };
}

/**
 * About how many characters of a title a cell shows on screen at `zoom`: the whole lines of 12 px type
 * (on lines of 1.15, with 8 px of padding) its height holds, up to three, by the characters a line holds
 * (about 7 px each, less 13 px of border and padding). The measure cells are chosen by.
 */
export function titleShown(cell: { width: number; height: number }, zoom: number): number {
  return titleLines(cell.height, zoom) * lineShown(cell.width, zoom);
}

/** About how many characters of title one line of a note `width` wide shows on screen at `zoom`. */
function lineShown(width: number, zoom: number): number {
  return Math.max(0, (width * zoom - 12) / 6.8);
}

/** The zoom a shape fits a view at, its headings kept `HEADER_SCREEN` high on screen. */
function zoomFor(shape: Shape, view: { width: number; height: number }): number {
  const across = view.width / (shape.width * (1 + FIT_PADDING));
  const down = (view.height / (1 + FIT_PADDING) - HEADER_SCREEN) / shape.body;
  return Math.max(0.01, Math.min(MAX_ZOOM, across, down));
}

/**
 * Lays the notes out in lanes for a view of `view` pixels: picks how many rows the lanes run to so
 * that the whole room fits the view at the largest zoom, each lane as many columns wide as its notes
 * need. The same notes in the same view always get the same places, and a new note only adds a cell
 * at the end of its lane until the lanes grow a row deeper.
 */
export function arrangeLanes(
  notes: readonly LaneNote[],
  options: {
    collapsed?: ReadonlySet<string>;
    view: { width: number; height: number };
    /** Lanes one below another, for a narrow view (see `arrangeStacked`). */
    stacked?: boolean;
    /** When given, the one lane shown open (none when null); every other lane is folded. */
    open?: string | null;
  },
): LaneArrangement {
  const view = { width: Math.max(200, options.view.width), height: Math.max(200, options.view.height) };
  const groups = groupIntoLanes(notes);
  const collapsed =
    options.open === undefined
      ? (options.collapsed ?? new Set<string>())
      : new Set(groups.map((group) => group.key).filter((key) => key !== options.open));
  if (options.stacked) return arrangeStacked(groups, collapsed, view);
  const longest = Math.max(1, ...groups.map((group) => group.notes.length));
  let cell: { width: number; height: number } = { ...LANE_CELL };
  let best = shapeFor(groups, collapsed, longest, cell);
  let bestZoom = zoomFor(best, view);
  let bestShown = -1;
  // Taller cells first: where two sizes show as much, the taller keeps more of each note at reading zoom.
  for (const height of LANE_CELL_HEIGHTS) {
    for (const width of LANE_CELL_WIDTHS) {
      for (let rows = longest; rows >= 1; rows--) {
        const candidate = { width, height };
        const shape = shapeFor(groups, collapsed, rows, candidate);
        const zoom = zoomFor(shape, view);
        const shown = titleShown(candidate, zoom);
        if (shown > bestShown + 1e-9 || (Math.abs(shown - bestShown) <= 1e-9 && bestShown <= 0 && zoom > bestZoom + 1e-9)) {
          best = shape;
          bestZoom = zoom;
          cell = candidate;
          bestShown = shown;
        }
      }
    }
  }
  const headerHeight = Math.max(HEADER_MIN, Math.ceil(HEADER_SCREEN / bestZoom));
  const positions = new Map<string, Point>();
  const laneOf = new Map<string, string>();
  const lanes: Lane[] = [];
  let x = 0;
  for (const [index, group] of groups.entries()) {
    const columns = best.columns[index]!;
    const isCollapsed = collapsed.has(group.key);
    const width = span(columns, cell.width, LANE_GAP.x);
    // A folded lane's card runs the height of the lanes beside it: room, in a narrow column, for its summary.
    const rows = isCollapsed ? best.rows : Math.ceil(group.notes.length / columns);
    for (const [order, note] of group.notes.entries()) {
      laneOf.set(note.id, group.key);
      if (isCollapsed) continue;
      positions.set(note.id, {
        x: x + (order % columns) * (cell.width + LANE_GAP.x),
        y: Math.floor(order / columns) * (cell.height + LANE_GAP.y),
      });
    }
    lanes.push({
      key: group.key,
      name: group.name,
      noteIds: group.notes.map((note) => note.id),
      collapsed: isCollapsed,
      columns,
      header: { x, y: -headerHeight, width, height: headerHeight - LANE_GAP.y },
      body: { x, y: 0, width, height: span(rows, cell.height, LANE_GAP.y) },
    });
    x += width + LANE_GAP.lane;
  }
  return { lanes, stacked: false, positions, laneOf, fitZoom: bestZoom, cell };
}

/**
 * Lanes for a narrow view (a phone's): one below another, each as wide as the view at a zoom below
 * reading, so that every title shows whole lines of readable type, and the view moves down them
 * rather than shrinking the room to fit. A folded lane is a single card, its heading and summary in
 * one, so a room's lanes folded fit a phone's screen. The cell and the number of columns are those
 * that put the most notes on a screen while each title still shows two lines of `READABLE_LINE`
 * characters; the same for every lane, so that links run along the same gaps.
 */
function arrangeStacked(groups: readonly Group[], collapsed: ReadonlySet<string>, view: { width: number; height: number }) {
  let best: {
    cell: { width: number; height: number };
    columns: number;
    zoom: number;
    readable: boolean;
    density: number;
    shown: number;
  } | null = null;
  for (const height of LANE_CELL_HEIGHTS) {
    for (const width of LANE_CELL_WIDTHS) {
      for (let columns = 1; columns <= 4; columns++) {
        const cell = { width, height };
        const zoom = Math.min(STACKED_MAX_ZOOM, view.width / (span(columns, width, LANE_GAP.x) * (1 + FIT_PADDING)));
        const readable = titleLines(height, zoom) >= 2 && lineShown(width, zoom) >= READABLE_LINE;
        const density = 1 / ((width + LANE_GAP.x) * (height + LANE_GAP.y) * zoom * zoom);
        const shown = titleShown(cell, zoom);
        const better =
          !best ||
          (readable && !best.readable) ||
          (readable === best.readable &&
            (readable
              ? density > best.density * (1 + 1e-9) || (Math.abs(density / best.density - 1) <= 1e-9 && shown > best.shown)
              : shown > best.shown));
        if (better) best = { cell, columns, zoom, readable, density, shown };
      }
    }
  }
  const { cell, columns, zoom } = best!;
  const width = span(columns, cell.width, LANE_GAP.x);
  const headerHeight = Math.max(HEADER_MIN, Math.ceil(HEADER_SCREEN / zoom));
  const cardHeight = Math.max(cell.height, Math.ceil(CARD_SCREEN / zoom));
  const positions = new Map<string, Point>();
  const laneOf = new Map<string, string>();
  const lanes: Lane[] = [];
  let y = 0;
  for (const group of groups) {
    const isCollapsed = collapsed.has(group.key);
    for (const note of group.notes) laneOf.set(note.id, group.key);
    if (isCollapsed) {
      const card = { x: 0, y, width, height: cardHeight };
      lanes.push({
        key: group.key,
        name: group.name,
        noteIds: group.notes.map((note) => note.id),
        collapsed: true,
        columns,
        header: card,
        body: card,
      });
      y += cardHeight + LANE_GAP.y;
      continue;
    }
    const top = y + headerHeight;
    for (const [order, note] of group.notes.entries()) {
      positions.set(note.id, {
        x: (order % columns) * (cell.width + LANE_GAP.x),
        y: top + Math.floor(order / columns) * (cell.height + LANE_GAP.y),
      });
    }
    const rows = Math.max(1, Math.ceil(group.notes.length / columns));
    const body = { x: 0, y: top, width, height: span(rows, cell.height, LANE_GAP.y) };
    lanes.push({
      key: group.key,
      name: group.name,
      noteIds: group.notes.map((note) => note.id),
      collapsed: false,
      columns,
      header: { x: 0, y, width, height: headerHeight - LANE_GAP.y },
      body,
    });
    y = body.y + body.height + LANE_GAP.lane;
  }
  return { lanes, stacked: true, positions, laneOf, fitZoom: zoom, cell };
}

/**
 * Whether the room as placed, fitted to a view of `view` pixels (with the canvas's usual margin of
 * 0.3 and its zoom kept between 0.1 and 1.1), shows each note's title readably: at reading zoom or
 * beyond, or else with a typical note (the median width) wide enough on screen for a line of
 * `READABLE_LINE` characters of title. A room that does not opens in lanes.
 */
export function placedViewReadable(
  notes: readonly Pick<LaneNote, "x" | "y" | "kind" | "text">[],
  view: { width: number; height: number },
): boolean {
  if (notes.length === 0) return true;
  const boxes = notes.map((note) => boxOf(shapeOf(note)));
  const left = Math.min(...boxes.map((box) => box.x));
  const top = Math.min(...boxes.map((box) => box.y));
  const right = Math.max(...boxes.map((box) => box.x + box.width));
  const bottom = Math.max(...boxes.map((box) => box.y + box.height));
  const zoom = Math.max(0.1, Math.min(MAX_ZOOM, view.width / 1.3 / (right - left), view.height / 1.3 / (bottom - top)));
  if (zoom >= READING_ZOOM) return true;
  const widths = boxes.map((box) => box.width).sort((a, b) => a - b);
  return lineShown(widths[Math.floor(widths.length / 2)]!, zoom) >= READABLE_LINE;
}

/**
 * A link's path in lanes, along the gaps between cells so that it crosses no note: out of the side of
 * its source facing the target, along the gap beside the source to the gap above the target's row,
 * across to the gap beside the target, and in. Links between the same columns share their gaps, so
 * they run together as a bundle. Answers the corners, first and last on the notes' sides.
 */
export function laneRoute(source: Box, target: Box): Point[] {
  const rightward = target.x + target.width / 2 >= source.x + source.width / 2;
  const sameColumn = Math.abs(target.x - source.x) < 1;
  const half = LANE_GAP.x / 2;
  const start = { x: rightward ? source.x + source.width : source.x, y: source.y + source.height / 2 };
  const outX = rightward ? start.x + half : start.x - half;
  const end = sameColumn
    ? { x: start.x, y: target.y + target.height / 2 }
    : { x: rightward ? target.x : target.x + target.width, y: target.y + target.height / 2 };
  const inX = sameColumn ? outX : rightward ? end.x - half : end.x + half;
  if (Math.abs(inX - outX) < 1) return [start, { x: outX, y: start.y }, { x: outX, y: end.y }, end];
  // The row gap above the target's row runs clear across every lane.
  const across = target.y - LANE_GAP.y / 2;
  return [start, { x: outX, y: start.y }, { x: outX, y: across }, { x: inX, y: across }, { x: inX, y: end.y }, end];
}

/** An SVG path through `points` with its corners rounded, and the middle of its longest leg (for a label). */
export function roundedPath(points: readonly Point[], radius = 10): { path: string; middle: Point } {
  if (points.length === 0) return { path: "", middle: { x: 0, y: 0 } };
  const first = points[0]!;
  let path = `M ${first.x} ${first.y}`;
  for (let index = 1; index < points.length - 1; index++) {
    const before = points[index - 1]!;
    const corner = points[index]!;
    const after = points[index + 1]!;
    const inLength = Math.hypot(corner.x - before.x, corner.y - before.y);
    const outLength = Math.hypot(after.x - corner.x, after.y - corner.y);
    const r = Math.min(radius, inLength / 2, outLength / 2);
    if (r < 0.5) {
      path += ` L ${corner.x} ${corner.y}`;
      continue;
    }
    const from = { x: corner.x - ((corner.x - before.x) / inLength) * r, y: corner.y - ((corner.y - before.y) / inLength) * r };
    const to = { x: corner.x + ((after.x - corner.x) / outLength) * r, y: corner.y + ((after.y - corner.y) / outLength) * r };
    path += ` L ${from.x} ${from.y} Q ${corner.x} ${corner.y} ${to.x} ${to.y}`;
  }
  const last = points.at(-1)!;
  path += ` L ${last.x} ${last.y}`;
  let middle = first;
  let longest = -1;
  for (let index = 1; index < points.length; index++) {
    const a = points[index - 1]!;
    const b = points[index]!;
    const length = Math.hypot(b.x - a.x, b.y - a.y);
    if (length > longest) {
      longest = length;
      middle = { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
    }
  }
  return { path, middle };
}
