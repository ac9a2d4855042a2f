import { errorText, type Logger } from '../log.ts'
import type { UpstreamClient } from '../feeds/upstream.ts'

/**
 * The war the schedule collects. It starts at WAR_ID and follows the upstream's current
 * war season (`/WarSeason/current/WarID`) from then on, so a new war is collected without
 * a restart and the old war's rows stay where they are. The community feed carries no war
 * id, so its rows are stored under this id as well.
 *
 * A failed check keeps the war it has: a feed outage must not move collection anywhere.
 */
export class CurrentWar {
  private current: number
  private checking: Promise<number> | undefined

  constructor(
    initial: number,
    private readonly upstream: Pick<UpstreamClient, 'currentWarId'>,
    private readonly log: Logger,
  ) {
    this.current = initial
  }

  get id(): number {
    return this.current
  }

  /**
   * Asks the upstream for its current war and follows it; rejects with the feed's error.
   * One request at a time, so overlapping checks cannot settle out of order.
   */
  verify(): Promise<number> {
    this.checking ??= this.upstream
      .currentWarId()
      .then((id) => {
        if (id !== this.current) {
          this.log.info('current war changed', { from: this.current, to: id })
          this.current = id
        }
        return id
      })
      .finally(() => {
        this.checking = undefined
      })
    return this.checking
  }

  /** verify() for the schedule: a failed check keeps (and returns) the war collected so far. */
  async refresh(): Promise<number> {
    try {
      return await this.verify()
    } catch (err) {
      this.log.warn('current war check failed; keeping the war collected so far', { warId: this.current, error: errorText(err) })
      return this.current
    }
  }
}

/**
 * The community feed describes the upstream's current war only: its rows cannot be
 * stored under another war id.
 */
export class NotCurrentWarError extends Error {
  override readonly name = 'NotCurrentWarError'

  constructor(
    readonly warId: number,
    readonly currentWarId: number,
  ) {
    super(`the community feed describes the current war (${currentWarId}), not war ${warId}`)
  }
}
