/** WCAG's relative luminance of a `#rrggbb` colour. */
function luminance([r, g, b]: [number, number, number]): number {
  const linear = (channel: number) => {
    const c = channel / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
}

function channels(hex: string): [number, number, number] | null {
  const match = /^#?([0-9a-f]{6}|[0-9a-f]{3})$/i.exec(hex.trim());
  if (!match) return null;
  const digits = match[1]!.length === 3 ? [...match[1]!].map((digit) => digit + digit).join("") : match[1]!;
  return [0, 2, 4].map((at) => Number.parseInt(digits.slice(at, at + 2), 16)) as [number, number, number];
}

/** The contrast ratio between two `#rrggbb` colours, from 1 to 21. */
export function contrastRatio(one: string, other: string): number {
  const a = channels(one);
  const b = channels(other);
  if (!a || !b) return 1;
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

const cache = new Map<string, string>();

/**
 * The contrast aimed at: WCAG asks 4.5:1 of small text; the margin keeps a name written on one of
 * the page's lightly tinted panels (a dialogue's, a finding's) above 4.5:1 too.
 */
const TARGET = 5.2;

/**
 * The colour itself when text in it reads well on `background`, else the same hue darkened just
 * enough. Agents' colours are chosen to tell them apart, not to be read as small text on white:
 * a name or label written in one goes through this first.
 */
export function readableInk(color: string, background = "#ffffff"): string {
  const key = `${color}|${background}`;
  const known = cache.get(key);
  if (known) return known;
  const start = channels(color);
  let ink = color;
  if (start) {
    for (let shade = 1; shade >= 0 && contrastRatio(ink, background) < TARGET; shade -= 0.05) {
      ink = `#${start
        .map((channel) =>
          Math.round(channel * shade)
            .toString(16)
            .padStart(2, "0"),
        )
        .join("")}`;
    }
  }
  cache.set(key, ink);
  return ink;
}
