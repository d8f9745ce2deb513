/** FNV-1a: a small, stable string hash for seeding. */
export function hashString(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** A deterministic random source (mulberry32): the same seed always gives the same choices. */
export class SeededRandom {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0 || 0x9e3779b9;
  }

  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  int(maxExclusive: number): number {
    return Math.floor(this.next() * maxExclusive);
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  /** `count` distinct items in a stable shuffled order. */
  sample<T>(items: readonly T[], count: number): T[] {
    const pool = items.slice();
    for (let index = pool.length - 1; index > 0; index--) {
      const swap = this.int(index + 1);
      [pool[index], pool[swap]] = [pool[swap]!, pool[index]!];
    }
    return pool.slice(0, Math.min(count, pool.length));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }
}
