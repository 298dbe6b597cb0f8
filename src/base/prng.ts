/**
 * Randomness comes in through this interface so that a seed replays a run exactly. The seeded
 * generator is xoshiro128** (small state, good statistical quality, fast in 32-bit JS arithmetic),
 * seeded through splitmix32 so that nearby seeds give unrelated streams.
 */
export interface Prng {
  /** A uniformly distributed unsigned 32-bit integer. */
  nextU32(): number;
  /** An integer in [0, bound). `bound` must be a positive safe integer. */
  intBelow(bound: number): number;
  /** A float in [0, 1). */
  nextFloat(): number;
}

function splitmix32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x9e3779b9) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
}

export class SeededPrng implements Prng {
  private s0: number;
  private s1: number;
  private s2: number;
  private s3: number;

  constructor(readonly seed: number) {
    const next = splitmix32(seed);
    this.s0 = next();
    this.s1 = next();
    this.s2 = next();
    this.s3 = next();
  }

  nextU32(): number {
    const result = Math.imul(rotl(Math.imul(this.s1, 5) >>> 0, 7), 9) >>> 0;
    const t = (this.s1 << 9) >>> 0;
    this.s2 ^= this.s0;
    this.s3 ^= this.s1;
    this.s1 ^= this.s2;
    this.s0 ^= this.s3;
    this.s2 ^= t;
    this.s3 = rotl(this.s3, 11);
    this.s0 >>>= 0;
    this.s1 >>>= 0;
    this.s2 >>>= 0;
    return result;
  }

  nextFloat(): number {
    // 53 random bits: two draws, so every double in [0, 1) on the 2^-53 grid is reachable.
    const high = this.nextU32() >>> 5;
    const low = this.nextU32() >>> 6;
    return (high * 67108864 + low) / 9007199254740992;
  }

  intBelow(bound: number): number {
    if (!Number.isSafeInteger(bound) || bound <= 0)
      throw new RangeError(`intBelow needs a positive safe integer, got ${bound}`);
    return Math.floor(this.nextFloat() * bound);
  }

  /** A new independent generator derived from this one (for per-node streams in a simulation). */
  fork(): SeededPrng {
    return new SeededPrng(this.nextU32());
  }
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}
