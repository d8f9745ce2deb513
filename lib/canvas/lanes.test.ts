import { describe, expect, it } from "vitest";
import { overlaps } from "./free-spot";
import {
  LANE_CELL,
  LANE_CELL_WIDTHS,
  READING_ZOOM,
  STACKED_MAX_ZOOM,
  type LaneNote,
  arrangeLanes,
  groupIntoLanes,
  laneRoute,
  placedViewReadable,
  roundedPath,
  titleDepth,
  titleLines,
  titleShown,
} from "./lanes";

function note(index: number, author: string, extra: Partial<LaneNote> = {}): LaneNote {
  return {
    id: `n${String(index).padStart(3, "0")}`,
    kind: "idea",
    text: `Note ${index}`,
    x: (index * 37) % 900,
    y: (index * 53) % 700,
    authorId: author,
    authorName: author.toUpperCase(),
    createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, index)).toISOString(),
    ...extra,
  };
}

const VIEW = { width: 1000, height: 780 };
const AUTHORS = ["songwriter", "painter", "weaver", "ada", "curator"];
const crowd = Array.from({ length: 200 }, (_, index) => note(index, AUTHORS[index < 60 ? index % 2 : index % AUTHORS.length]!));

describe("lanes", () => {
  it("puts each author's notes in a lane of their own, oldest first, lanes in the order they began", () => {
    const groups = groupIntoLanes([note(3, "b"), note(1, "a"), note(2, "b"), note(4, "a")]);
    expect(groups.map((group) => [group.key, group.notes.map((n) => n.id)])).toEqual([
      ["author:a", ["n001", "n004"]],
      ["author:b", ["n002", "n003"]],
    ]);
  });

  it("puts a brainstorm's work in the lane of the stage heading above and left of it", () => {
    const heading = note(1, "brainstorm", { kind: "stage", text: "Stage 2 · Divergent\nMany ideas", x: 400, y: 0 });
    const under = note(2, "ideator", { x: 780, y: 300 });
    const left = note(3, "ada", { x: 0, y: 300 });
    const groups = groupIntoLanes([heading, under, left]);
    expect(groups.map((group) => [group.name, group.notes.map((n) => n.id)])).toEqual([
      ["Stage 2 · Divergent", ["n001", "n002"]],
      ["ADA", ["n003"]],
    ]);
  });

  it("lays 200 notes out with none overlapping, at a zoom where two lines of 12 px type fit each cell", () => {
    const { positions, lanes, fitZoom, cell } = arrangeLanes(crowd, { view: VIEW });
    expect(positions.size).toBe(200);
    const boxes = [...positions.values()].map((at) => ({ ...at, ...cell }));
    const clashes = boxes.flatMap((a, i) => boxes.slice(i + 1).filter((b) => overlaps(a, b)));
    expect(clashes).toEqual([]);
    expect(lanes).toHaveLength(5);
    // At least one whole line of title in every cell on screen.
    expect(titleLines(cell.height, fitZoom)).toBeGreaterThanOrEqual(1);
    for (const lane of lanes) {
      for (const id of lane.noteIds) {
        const at = positions.get(id)!;
        expect(at.x).toBeGreaterThanOrEqual(lane.body.x);
        expect(at.x + cell.width).toBeLessThanOrEqual(lane.body.x + lane.body.width);
        expect(at.y).toBeGreaterThanOrEqual(lane.header.y + lane.header.height);
      }
    }
  });

  it("folds a collapsed lane into a card two columns wide, its notes unplaced, and gives the room back to the others", () => {
    const open = arrangeLanes(crowd, { view: VIEW });
    const key = open.lanes[0]!.key;
    const folded = arrangeLanes(crowd, { view: VIEW, collapsed: new Set([key]) });
    const lane = folded.lanes.find((candidate) => candidate.key === key)!;
    expect(lane.collapsed).toBe(true);
    // Its card runs the height of the open lanes beside it.
    const tallest = Math.max(...folded.lanes.filter((other) => !other.collapsed).map((other) => other.body.height));
    expect(lane.body.height).toBe(tallest);
    expect(lane.columns).toBe(2);
    expect(lane.body.width).toBe(2 * folded.cell.width + 32);
    expect(lane.noteIds.every((id) => !folded.positions.has(id))).toBe(true);
    expect(folded.positions.size).toBe(200 - lane.noteIds.length);
    expect(titleShown(folded.cell, folded.fitZoom)).toBeGreaterThanOrEqual(titleShown(open.cell, open.fitZoom));
  });

  it("takes wider cells when the view has room across, so that more of each title shows", () => {
    const few = crowd.slice(0, 12);
    const wide = arrangeLanes(few, { view: { width: 1400, height: 500 } });
    expect(wide.cell.width).toBe(LANE_CELL_WIDTHS.at(-1));
    expect(titleShown(wide.cell, wide.fitZoom)).toBeGreaterThan(titleShown(LANE_CELL, wide.fitZoom));
    // A title that gets no whole line shows nothing, however wide its cell.
    expect(titleShown({ width: 300, height: 150 }, 0.05)).toBe(0);
  });

  it("gives the same notes the same places every time", () => {
    const once = arrangeLanes(crowd, { view: VIEW });
    const again = arrangeLanes([...crowd].reverse(), { view: VIEW });
    expect([...again.positions].sort()).toEqual([...once.positions].sort());
  });

  it("routes a link along the gaps, clear of every other cell", () => {
    const { positions, cell } = arrangeLanes(crowd, { view: VIEW });
    const boxes = [...positions.entries()].map(([id, at]) => ({ id, ...at, ...cell }));
    for (const [from, to] of [
      [0, 150],
      [150, 3],
      [10, 11],
      [40, 45],
    ] as const) {
      const source = boxes[from]!;
      const target = boxes[to]!;
      const route = laneRoute(source, target);
      for (let index = 1; index < route.length; index++) {
        const a = route[index - 1]!;
        const b = route[index]!;
        const leg = {
          x: Math.min(a.x, b.x),
          y: Math.min(a.y, b.y),
          width: Math.abs(a.x - b.x) || 0.01,
          height: Math.abs(a.y - b.y) || 0.01,
        };
        const crossed = boxes.filter((box) => box.id !== source.id && box.id !== target.id && overlaps(leg, box)).map((box) => box.id);
        expect(crossed, `leg ${index} of ${source.id} → ${target.id}`).toEqual([]);
      }
    }
  });

  it("rounds a route's corners and finds the middle of its longest leg", () => {
    const { path, middle } = roundedPath([
      { x: 0, y: 0 },
      { x: 100, y: 0 },
      { x: 100, y: 300 },
    ]);
    expect(path.startsWith("M 0 0 L 90 0 Q 100 0 100 10")).toBe(true);
    expect(middle).toEqual({ x: 100, y: 150 });
  });
});

describe("lanes on a narrow view", () => {
  const PHONE = { width: 280, height: 560 };

  it("stacks the lanes one below another, each the view's width, every title two whole lines below reading zoom", () => {
    const { lanes, positions, cell, fitZoom, stacked } = arrangeLanes(crowd, { view: PHONE, stacked: true });
    expect(stacked).toBe(true);
    expect(positions.size).toBe(200);
    expect(fitZoom).toBeLessThanOrEqual(STACKED_MAX_ZOOM);
    expect(fitZoom).toBeLessThan(READING_ZOOM);
    expect(titleLines(cell.height, fitZoom)).toBeGreaterThanOrEqual(2);
    // Two lines of at least 14 characters of 11.5 px type: the note is at least 107 px wide on screen.
    expect(cell.width * fitZoom).toBeGreaterThanOrEqual(107);
    const width = lanes[0]!.body.width;
    expect(width * fitZoom).toBeLessThanOrEqual(PHONE.width);
    for (const [index, lane] of lanes.entries()) {
      expect(lane.body.width).toBe(width);
      expect(lane.header.y + lane.header.height).toBeLessThanOrEqual(lane.body.y);
      if (index > 0) expect(lane.header.y).toBeGreaterThan(lanes[index - 1]!.body.y + lanes[index - 1]!.body.height);
      for (const id of lane.noteIds) {
        const at = positions.get(id)!;
        expect(at.y).toBeGreaterThanOrEqual(lane.body.y);
        expect(at.y + cell.height).toBeLessThanOrEqual(lane.body.y + lane.body.height);
        expect(at.x + cell.width).toBeLessThanOrEqual(width);
      }
    }
    const boxes = [...positions.values()].map((at) => ({ ...at, ...cell }));
    expect(boxes.flatMap((a, i) => boxes.slice(i + 1).filter((b) => overlaps(a, b)))).toEqual([]);
  });

  it("folds every lane but the one open into a card the view's width, tall enough for its toggle and three lines", () => {
    const all = arrangeLanes(crowd, { view: PHONE, stacked: true, open: null });
    expect(all.positions.size).toBe(0);
    expect(all.lanes.every((lane) => lane.collapsed)).toBe(true);
    for (const lane of all.lanes) {
      expect(lane.header).toEqual(lane.body);
      expect(lane.body.height * all.fitZoom).toBeGreaterThanOrEqual(60);
    }
    // Five folded lanes fit a phone's screen together.
    const last = all.lanes.at(-1)!;
    expect((last.body.y + last.body.height) * all.fitZoom).toBeLessThan(PHONE.height);
    const second = all.lanes[1]!.key;
    const one = arrangeLanes(crowd, { view: PHONE, stacked: true, open: second });
    expect(one.lanes.filter((lane) => !lane.collapsed).map((lane) => lane.key)).toEqual([second]);
    expect([...one.positions.keys()].sort()).toEqual([...one.lanes[1]!.noteIds].sort());
  });

  it("keeps the lanes side by side unless asked to stack them", () => {
    expect(arrangeLanes(crowd, { view: PHONE }).stacked).toBe(false);
  });
});

describe("which view a room opens in", () => {
  const DESKTOP = { width: 1000, height: 800 };
  const placed = (count: number, columns: number) =>
    Array.from({ length: count }, (_, index) => ({
      kind: "idea",
      text: `Idea ${index}: a few words`,
      x: (index % columns) * 380,
      y: Math.floor(index / columns) * 240,
    }));

  it("keeps a room of a few notes as placed", () => {
    expect(placedViewReadable([], DESKTOP)).toBe(true);
    expect(placedViewReadable(placed(6, 3), DESKTOP)).toBe(true);
    expect(placedViewReadable(placed(12, 4), DESKTOP)).toBe(true);
  });

  it("opens a room in lanes when its placed notes, fitted to the view, are too small for a line of title", () => {
    expect(placedViewReadable(placed(200, 7), DESKTOP)).toBe(false);
    expect(placedViewReadable(placed(70, 10), DESKTOP)).toBe(false);
    // The same room that reads on a big screen does not on a phone's.
    expect(placedViewReadable(placed(12, 4), { width: 390, height: 600 })).toBe(false);
  });
});

describe("titleDepth", () => {
  it("is as deep as the title's lines and padding on screen, in the canvas's units, so a note paints all of it", () => {
    // Two lines of 12.9 px and 6 px of padding at a third of full size: 95.4 px, rounded up.
    expect(titleDepth(2, 1 / 3)).toBe(96);
    expect(titleDepth(1, 0.1)).toBeGreaterThan(titleDepth(1, 0.5));
    // A cell's whole title fits the depth the cell's own lines give.
    expect(titleDepth(titleLines(LANE_CELL.height, 0.3), 0.3)).toBeLessThanOrEqual(LANE_CELL.height);
  });
});
