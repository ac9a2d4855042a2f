/** How old data captured at `at` is at `now`, in whole seconds (never negative: clocks of two machines). */
export const ageSeconds = (at: Date, now: Date) => Math.max(0, Math.floor((now.getTime() - at.getTime()) / 1000))

/** The additive data-age fields of the live and war answers. */
export const dataAge = (at: Date | null, now: Date) => ({ dataCapturedAt: at, dataAgeSeconds: at === null ? null : ageSeconds(at, now) })
