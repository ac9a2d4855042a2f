/**
 * Stateless randomness: every draw is a hash of (seed, ...coordinates), so any value of
 * the simulated war can be recomputed for a given seed and moment, in any order.
 */
export function hash32(seed: number, ...parts: number[]): number {
  let h = (seed ^ 0x9e3779b9) >>> 0
  for (const part of parts) {
    // Mix the integer and the fractional part so that non-integer coordinates also differ.
    const whole = Math.floor(part)
    h = Math.imul(h ^ (whole >>> 0), 0x85ebca6b)
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35)
    h ^= Math.floor((part - whole) * 0x10000)
    h = (h ^ (h >>> 16)) >>> 0
  }
  h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d)
  h = Math.imul(h ^ (h >>> 12), 0x297a2d39)
  return (h ^ (h >>> 15)) >>> 0
}

/** Uniform in [0, 1). */
export function rand(seed: number, ...parts: number[]): number {
  return hash32(seed, ...parts) / 0x1_0000_0000
}

/** Standard normal (Box-Muller over two hashed draws). */
export function gauss(seed: number, ...parts: number[]): number {
  const u = Math.max(rand(seed, ...parts, 1), 1e-12)
  const v = rand(seed, ...parts, 2)
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v)
}

/** Smooth noise in [-1, 1]: linear blend between random knots every `periodS` seconds. */
export function smoothNoise(seed: number, salt: number, t: number, periodS: number): number {
  const k = Math.floor(t / periodS)
  const f = t / periodS - k
  const a = rand(seed, salt, k) * 2 - 1
  const b = rand(seed, salt, k + 1) * 2 - 1
  return a + (b - a) * f
}

export function pick<T>(items: readonly T[], r: number): T | undefined {
  return items[Math.floor(r * items.length)]
}
