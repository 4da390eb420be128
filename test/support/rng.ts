// A seeded PRNG shared by the randomised test doubles and the fuzz: every choice of a run derives from the
// seed, so a failure is reproduced by running again with the seed it printed.

/** mulberry32: tiny, fast, and good enough to pick mutations; every choice of a run derives from the seed. */
export class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** 0 <= n < max */
  int(max: number): number {
    return Math.floor(this.next() * max);
  }
  /** lo <= n <= hi */
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T;
  }
  weighted<T>(entries: readonly (readonly [T, number])[]): T {
    const total = entries.reduce((sum, [, w]) => sum + w, 0);
    let roll = this.next() * total;
    for (const [item, weight] of entries) {
      roll -= weight;
      if (roll < 0) return item;
    }
    return (entries[entries.length - 1] as readonly [T, number])[0];
  }
  bytes(n: number): Buffer {
    const out = Buffer.alloc(n);
    for (let i = 0; i < n; i++) out[i] = this.int(256);
    return out;
  }
  text(n: number, alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789'): string {
    let out = '';
    for (let i = 0; i < n; i++) out += alphabet[this.int(alphabet.length)];
    return out;
  }
}
