/**
 * Webhook deliveries, from the outbox (storage/webhooks.ts) that the event appends fill in
 * their own transactions: an event committed is an event delivered, at least once.
 * Every process runs a deliverer; a subscription is delivered by the process that holds
 * its lease, oldest delivery first, one at a time: in order per subscription, by one
 * process. A failed attempt is retried with exponential backoff (capped at an hour,
 * jittered) for 24 hours after the delivery was queued, then abandoned; later deliveries
 * wait behind the one being retried. A process killed mid-delivery leaves its lease to run
 * out; whoever takes it next sends that delivery again, with the same delivery id.
 */
import { lookup } from 'node:dns/promises'
import { BlockList, isIP } from 'node:net'
import type { Sql } from '../db/connect.ts'
import { errorText, type Logger } from '../log.ts'
import type { DataVersions } from '../storage/changes.ts'
import * as events from '../storage/events.ts'
import * as webhooks from '../storage/webhooks.ts'
import { Rerun } from './rerun.ts'
import { deliveryBody, deliveryId, signedHeaders } from './webhook-bodies.ts'

export interface DelivererOptions {
  /** The deliverer's clock (leases, due times, the 24-hour limit); tests move it. */
  now?: () => Date
  /** Loopback and private targets allowed (WEBHOOK_ALLOW_PRIVATE). */
  allowPrivate?: boolean
  /** One attempt's time limit. */
  timeoutMs?: number
  /** First retry delay; doubled per attempt up to an hour. */
  retryBaseMs?: number
  /** How often it looks for due deliveries besides the wake-ups of commits. */
  pollMs?: number
  fetch?: typeof fetch
}

const GIVE_UP_MS = 24 * 3600_000
const MAX_DELAY_MS = 3600_000

/** Why a URL may not be a webhook target (scheme, or an address in a private range); null: it may. */
export async function targetRefusal(raw: string, allowPrivate: boolean): Promise<string | null> {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return 'url must be an absolute http(s) URL'
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'url must be http or https'
  if (url.username || url.password) return 'url must not carry credentials'
  if (allowPrivate) return null
  const host = url.hostname.replace(/^\[|\]$/g, '')
  let addresses: string[]
  try {
    addresses = isIP(host) ? [host] : (await lookup(host, { all: true, verbatim: true })).map((a) => a.address)
  } catch {
    return `url: the host ${host} does not resolve`
  }
  const bad = addresses.find(isPrivate)
  return bad ? `url: ${host} is a loopback or private address (${bad}); set WEBHOOK_ALLOW_PRIVATE=true to allow it` : null
}

const PRIVATE = new BlockList()
for (const [net, bits] of [['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4]] as const) PRIVATE.addSubnet(net, bits, 'ipv4')
for (const [net, bits] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8]] as const) PRIVATE.addSubnet(net, bits, 'ipv6')

function isPrivate(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  if (mapped) return PRIVATE.check(mapped[1]!, 'ipv4')
  return PRIVATE.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4')
}

/** Retry delay after `attempts` failed attempts: base × 2^(attempts−1), capped, ±20 %. */
export function retryDelayMs(attempts: number, baseMs: number, random = Math.random): number {
  const d = Math.min(MAX_DELAY_MS, baseMs * 2 ** Math.max(0, attempts - 1))
  return Math.round(d * (0.8 + 0.4 * random()))
}

export class WebhookDeliverer {
  private stopped = true
  private readonly runs = new Rerun(() => this.runOnce())
  private timer: ReturnType<typeof setTimeout> | null = null
  private poll: ReturnType<typeof setInterval> | null = null
  private readonly now: () => Date
  private readonly o: Required<Omit<DelivererOptions, 'now'>>
  /** Attempts by outcome (/metrics). */
  readonly counts = { delivered: 0, failed: 0, abandoned: 0 }

  constructor(
    private readonly sql: Sql,
    versions: DataVersions | null,
    private readonly log: Logger,
    opts: DelivererOptions = {},
  ) {
    this.now = opts.now ?? (() => new Date())
    this.o = { allowPrivate: false, timeoutMs: 10_000, retryBaseMs: 5000, pollMs: 5000, fetch: globalThis.fetch, ...opts }
    versions?.onBump(() => this.kick())
  }

  start(): void {
    this.stopped = false
    this.poll = setInterval(() => this.kick(), this.o.pollMs)
    this.poll.unref?.()
    this.kick()
  }

  async stop(): Promise<void> {
    this.stopped = true
    if (this.poll) clearInterval(this.poll)
    if (this.timer) clearTimeout(this.timer)
    await this.runs.settled()
  }

  /** Look for due deliveries now (a commit queued some, a retry came due); one run at a time. */
  kick(): Promise<void> {
    return this.stopped ? Promise.resolve() : this.runs.request()
  }

  private async runOnce(): Promise<void> {
    if (this.stopped) return
    try {
      while (!this.stopped && (await this.deliverOne())) {}
      await this.wakeAtNextDue()
    } catch (err) {
      // The database is away, say: the next commit or poll tries again.
      this.log.warn('webhook deliveries paused: retried at the next poll', { error: errorText(err) })
    }
  }

  /** A lease on one due subscription, its due deliveries sent in order; false when none was due. */
  private async deliverOne(): Promise<boolean> {
    const leaseMs = this.o.timeoutMs + 5000
    let held = new Date(this.now().getTime() + leaseMs)
    const w = await webhooks.lease(this.sql, this.now(), held)
    if (!w) return false
    try {
      for (;;) {
        const d = await webhooks.head(this.sql, w.id)
        if (!d || (d.attempts > 0 && d.nextAttemptAt > this.now()) || this.stopped) break
        const ok = await this.attempt(w, d)
        if (!ok) break
        const until = new Date(this.now().getTime() + leaseMs)
        if (!(await webhooks.renew(this.sql, w.id, held, until))) return true
        held = until
      }
    } finally {
      await webhooks.release(this.sql, w.id, held).catch(() => {})
    }
    return true
  }

  private async attempt(w: webhooks.Leased, d: webhooks.PendingDelivery): Promise<boolean> {
    const at = this.now()
    if (at.getTime() - d.createdAt.getTime() > GIVE_UP_MS) {
      this.counts.abandoned++
      this.log.warn('webhook delivery abandoned after 24 hours of failures', { webhook: w.id, event: d.eventId })
      await webhooks.attempted(this.sql, w.id, d.eventId, at, null, 'abandoned after 24 hours of failures', { state: 'abandoned' })
      return true
    }
    const event = w.lang ? ((await eventIn(this.sql, d.eventId, w.lang)) ?? d.event) : d.event
    const body = deliveryBody(w.format, event)
    const id = deliveryId(w.id, d.eventId)
    let status: number | null = null
    let error: string | null = null
    try {
      const refusal = await targetRefusal(w.url, this.o.allowPrivate)
      if (refusal) throw new Error(refusal)
      const res = await this.o.fetch(w.url, {
        method: 'POST', body, redirect: 'manual',
        headers: { ...signedHeaders(w.secret, id, Math.floor(at.getTime() / 1000), body), 'user-agent': 'galactic-war-stats-webhooks' },
        signal: AbortSignal.timeout(this.o.timeoutMs),
      })
      status = res.status
      await res.body?.cancel().catch(() => {})
      if (res.status < 200 || res.status > 299) error = `answered ${res.status}`
    } catch (err) {
      error = errorText(err)
    }
    if (error === null) {
      this.counts.delivered++
      await webhooks.attempted(this.sql, w.id, d.eventId, this.now(), status, null, { state: 'delivered' })
      return true
    }
    this.counts.failed++
    const retryAt = new Date(this.now().getTime() + retryDelayMs(d.attempts + 1, this.o.retryBaseMs))
    await webhooks.attempted(this.sql, w.id, d.eventId, this.now(), status, error.slice(0, 500), { state: 'pending', retryAt })
    return false
  }

  /** A timer for the next retry that comes due (commits and the poll wake it sooner). */
  private async wakeAtNextDue(): Promise<void> {
    const due = await webhooks.nextDue(this.sql)
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    if (!due || this.stopped) return
    const inMs = Number.isFinite(due.getTime()) ? Math.max(0, due.getTime() - this.now().getTime()) : 0
    if (inMs >= this.o.pollMs) return
    this.timer = setTimeout(() => this.kick(), inMs + 10)
    this.timer.unref?.()
  }
}

/** One event with its texts in `lang`. */
async function eventIn(sql: Sql, id: number, lang: string) {
  const [e] = await events.reads.after(sql, { afterId: id - 1, upTo: id, lang: { one: lang }, limit: 1 })
  return e
}
