/** How old data captured at `at` is at `now`, in whole seconds (never negative: clocks of two machines). */
export const ageSeconds = (at: Date, now: Date) => Math.max(0, Math.floor((now.getTime() - at.getTime()) / 1000))

/** The additive data-age fields of the live and war answers. */
export const dataAge = (at: Date | null, now: Date) => ({ dataCapturedAt: at, dataAgeSeconds: at === null ? null : ageSeconds(at, now) })

/**
 * Share of [from, to] after the history's first row (0 without rows), rounded to 4 digits;
 * `partial`: a share known to be below 1 is rounded down, so it never reads as whole.
 */
export function coverageOf(first: Date | null, from: Date, to: Date, partial = false): number {
  const span = to.getTime() - from.getTime()
  if (first === null || first > to) return 0
  if (span <= 0) return 1
  const share = Math.min(1, (to.getTime() - Math.max(from.getTime(), first.getTime())) / span) * 10_000
  return (partial ? Math.floor(share) : Math.round(share)) / 10_000
}
