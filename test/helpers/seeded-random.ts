// A seeded pseudo-random source for tests that inject random faults: the seed is printed, and running again with
// SVC_TEST_SEED set to it makes the same sequence of choices.

export interface SeededRandom {
  seed: number;
  /** The next number in [0, 1). */
  next(): number;
}

/** The seed from SVC_TEST_SEED, or a fresh one; either way the caller prints it. */
export function testSeed(): number {
  const given = process.env.SVC_TEST_SEED;
  if (given !== undefined && given !== '') {
    const seed = Number(given);
    if (!Number.isInteger(seed) || seed < 0 || seed >= 2 ** 32)
      throw new Error(`SVC_TEST_SEED must be a whole number from 0 to ${2 ** 32 - 1}, not ${given}`);
    return seed;
  }
  return Math.floor(Math.random() * 2 ** 32);
}

/** mulberry32: small, fast and good enough to spread faults; not for anything secret. */
export function seededRandom(seed: number): SeededRandom {
  let state = seed >>> 0;
  return {
    seed,
    next() {
      state = (state + 0x6d2b79f5) >>> 0;
      let t = state;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
    },
  };
}
