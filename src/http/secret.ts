import { createHash, timingSafeEqual } from 'node:crypto'

/**
 * Constant-time comparison of a presented secret with the configured one. Hashing both
 * first gives equal-length inputs, so neither the content nor the length leaks by timing.
 */
export function secretMatches(presented: string | null | undefined, expected: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest()
  return timingSafeEqual(digest(presented ?? ''), digest(expected))
}
