import type { Box, Point } from "./free-spot";

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
  const columns = groups.map((group) => (collapsed.has(group.key) ? 1 : Math.max(1, Math.ceil(group.notes.length / rows))));
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
  return titleLines(cell.height, zoom) * Math.max(0, (cell.width * zoom - 12) / 6.8);
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
  options: { collapsed?: ReadonlySet<string>; view: { width: number; height: number } },
): LaneArrangement {
  const collapsed = options.collapsed ?? new Set<string>();
  const view = { width: Math.max(200, options.view.width), height: Math.max(200, options.view.height) };
  const groups = groupIntoLanes(notes);
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
    const rows = isCollapsed ? 1 : Math.ceil(group.notes.length / columns);
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
  return { lanes, positions, laneOf, fitZoom: bestZoom, cell };
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
