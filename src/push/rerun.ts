/**
 * Work that runs one at a time and is asked for again while it runs (a commit heard of
 * during a read of the log, say): the askers join the run in progress, and one more run
 * follows it, so nothing asked for during a run is missed and no two runs overlap.
 */
export class Rerun {
  private running: Promise<void> | null = null
  private again = false

  /** `work` must not throw: it handles its own failures (the next request retries). */
  constructor(private readonly work: () => Promise<void>) {}

  request(): Promise<void> {
    if (this.running) {
      this.again = true
      return this.running
    }
    this.running = (async () => {
      do {
        this.again = false
        await this.work()
      } while (this.again)
    })().finally(() => {
      this.running = null
    })
    return this.running
  }

  /** Resolves when no run is in progress. */
  settled(): Promise<void> {
    return this.running ?? Promise.resolve()
  }
}
