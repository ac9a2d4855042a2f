/**
 * The service's Prometheus metrics, one registry per process, served at GET /metrics
 * (routes/metrics.ts). Two kinds:
 * - events recorded as they happen, where no count exists elsewhere: HTTP requests
 *   (http/metrics.ts), collector runs and their rows (collect/runner.ts), rollup refreshes;
 * - counts the service already keeps (firings and the spool, the feed clients' counters
 *   and TTLs, the database gate), read when Prometheus scrapes (`collect()` callbacks), so
 *   nothing is counted twice and nothing can drift from /health/ready and /health/throttle.
 * This module imports no other module of the service: the sources it reads are described
 * here structurally and handed in by main.ts/app.ts (`watch`).
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'
import type { RequestStats } from './feeds/throttle.ts'

/** A scheduled collector's counts: firings (collect/collection.ts) and its spool (collect/spool.ts). */
export interface CollectorCounts {
  fetched: number
  failed: number
  skipped: number
  pending: number
  added: number
  written: number
  dropped: number
  rejected: number
}

/** One feed endpoint's counters (feeds/throttle.ts RequestStats), with the feed it belongs to. */
export type FeedEndpointCounts = RequestStats & { feed: string }

/** Payloads of a feed endpoint that carried a top-level field the service does not know (feeds/schema.ts UnknownFields). */
export interface UnknownFieldCounts {
  feed: string
  endpoint: string
  field: string
  count: number
}

export interface MetricSources {
  collectors?: () => Record<string, CollectorCounts>
  feeds?: () => FeedEndpointCounts[]
  unknownFields?: () => UnknownFieldCounts[]
  /** The pool: its size and the operations holding (or waiting for) one of its connections (db/gate.ts). */
  pool?: { max: () => number; inUse: () => number; available: () => boolean }
  /** The event stream's hub (push/stream.ts): open streams, events sent, clients refused or closed for not reading. */
  stream?: () => { clients: number; sent: number; refused: number; slowClosed: number }
  /** Webhooks (push/webhooks.ts): this process's attempts by outcome, and every subscription's backlog (read at scrape time). */
  webhooks?: {
    attempts: () => { delivered: number; failed: number; abandoned: number }
    backlog: () => Promise<{ id: number; pending: number; abandoned: number; failing: boolean }[]>
  }
}

export type CollectorOutcome = 'written' | 'unchanged' | 'locked' | 'failed'

// Request latencies of this API: cached answers take well under a millisecond, history
// pages tens of milliseconds, a database outage answers within ~1.5 s.
const HTTP_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
// Collector runs and rollup refreshes: feed round trips and transactions, up to the feed timeout.
const JOB_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60]

const HTTP_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])

interface Series {
  /** Observations per bucket (not cumulative); the last one is +Inf. */
  readonly buckets: Float64Array
  sum: number
  count: number
}

/**
 * http_request_duration_seconds, kept allocation-free on the request path: prom-client's
 * own histogram builds a key string for every observation, which the cached routes
 * (tens of thousands of requests a second) would pay for. Series are found through three
 * maps keyed by values that already exist (method, route pattern, status) and hold
 * plain arrays; prom-client turns them into the text format when scraped (a metric
 * object of the shape its registry reads: name, help, type, get()).
 */
class HttpDurations {
  readonly name = 'http_request_duration_seconds'
  readonly help = 'HTTP requests by method, route pattern and status: time from the request to its response (its _count is the number of requests)'
  readonly type = 'histogram'
  readonly aggregator = 'sum'
  private readonly series = new Map<string, Map<string, Map<number, Series>>>()

  constructor(registry: Registry) {
    registry.registerMetric(this as unknown as Histogram)
  }

  observe(method: string, route: string, status: number, seconds: number): void {
    let byRoute = this.series.get(method)
    if (!byRoute) this.series.set(method, (byRoute = new Map()))
    let byStatus = byRoute.get(route)
    if (!byStatus) byRoute.set(route, (byStatus = new Map()))
    let s = byStatus.get(status)
    if (!s) byStatus.set(status, (s = { buckets: new Float64Array(HTTP_BUCKETS.length + 1), sum: 0, count: 0 }))
    let i = 0
    while (i < HTTP_BUCKETS.length && seconds > HTTP_BUCKETS[i]!) i++
    s.buckets[i]!++
    s.sum += seconds
    s.count++
  }

  get() {
    const values: { metricName: string; labels: Record<string, string | number>; value: number }[] = []
    for (const [method, byRoute] of this.series) {
      for (const [route, byStatus] of byRoute) {
        for (const [status, s] of byStatus) {
          const labels = { method, route, status: String(status) }
          let cumulative = 0
          for (let i = 0; i <= HTTP_BUCKETS.length; i++) {
            cumulative += s.buckets[i]!
            values.push({ metricName: `${this.name}_bucket`, labels: { ...labels, le: i < HTTP_BUCKETS.length ? HTTP_BUCKETS[i]! : '+Inf' }, value: cumulative })
          }
          values.push({ metricName: `${this.name}_sum`, labels, value: s.sum })
          values.push({ metricName: `${this.name}_count`, labels, value: s.count })
        }
      }
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values }
  }

  reset(): void {
    this.series.clear()
  }
}

export class Metrics {
  readonly registry = new Registry()
  private sources: MetricSources = {}
  private readonly rollupWatermarks = new Map<string, number>()

  private readonly http = new HttpDurations(this.registry)

  private readonly runDuration = new Histogram({
    name: 'collector_run_duration_seconds',
    help: 'Collector runs by collector and outcome (written, unchanged, locked, failed): the duration each run logs (its _count is the number of runs)',
    labelNames: ['collector', 'outcome'] as const,
    buckets: JOB_BUCKETS,
    registers: [this.registry],
  })
  private readonly rowsWritten = new Counter({
    name: 'collector_rows_written_total',
    help: 'Rows written by the collectors, by collector and dataset',
    labelNames: ['collector', 'dataset'] as const,
    registers: [this.registry],
  })
  private readonly lastSuccess = new Gauge({
    name: 'collector_last_success_timestamp_seconds',
    help: 'Unix time of the last run of each collector that wrote or found nothing new',
    labelNames: ['collector'] as const,
    registers: [this.registry],
  })
  private readonly rollupDuration = new Histogram({
    name: 'rollup_refresh_duration_seconds',
    help: 'Rollup refreshes run by the service (Apache and plain PostgreSQL editions), by outcome (ok, failed)',
    labelNames: ['outcome'] as const,
    buckets: JOB_BUCKETS,
    registers: [this.registry],
  })

  /** `processMetrics`: CPU, memory, event loop (main.ts; test apps go without: each would start its monitors). */
  constructor(opts: { processMetrics?: boolean } = {}) {
    const self = this
    new Counter({
      name: 'collector_firings_total',
      help: 'Scheduled firings by collector and outcome: fetched (tick kept in the spool), failed (feed unavailable), skipped (previous firing still running)',
      labelNames: ['collector', 'outcome'] as const,
      registers: [this.registry],
      collect() {
        this.reset()
        for (const [collector, c] of Object.entries(self.sources.collectors?.() ?? {})) {
          this.inc({ collector, outcome: 'fetched' }, c.fetched)
          this.inc({ collector, outcome: 'failed' }, c.failed)
          this.inc({ collector, outcome: 'skipped' }, c.skipped)
        }
      },
    })
    new Gauge({
      name: 'collector_backlog_ticks',
      help: 'Scheduled ticks waiting in the spool to be written, per collector',
      labelNames: ['collector'] as const,
      registers: [this.registry],
      collect() {
        this.reset()
        for (const [collector, c] of Object.entries(self.sources.collectors?.() ?? {})) this.set({ collector }, c.pending)
      },
    })
    new Counter({
      name: 'collector_backlog_ticks_total',
      help: 'Ticks through the spool since start, by collector and outcome: added, written, dropped (bound reached), rejected (write failed for good)',
      labelNames: ['collector', 'outcome'] as const,
      registers: [this.registry],
      collect() {
        this.reset()
        for (const [collector, c] of Object.entries(self.sources.collectors?.() ?? {})) {
          this.inc({ collector, outcome: 'added' }, c.added)
          this.inc({ collector, outcome: 'written' }, c.written)
          this.inc({ collector, outcome: 'dropped' }, c.dropped)
          this.inc({ collector, outcome: 'rejected' }, c.rejected)
        }
      },
    })
    new Counter({
      name: 'feed_requests_total',
      help: 'Calls of the feed clients by feed, endpoint and outcome: hit (answered from the cache or a request in flight), ok, rate_limited, error (requests made)',
      labelNames: ['feed', 'endpoint', 'outcome'] as const,
      registers: [this.registry],
      collect() {
        this.reset()
        for (const e of self.sources.feeds?.() ?? []) {
          const labels = { feed: e.feed, endpoint: e.endpoint }
          if (e.ttlS !== undefined) this.inc({ ...labels, outcome: 'hit' }, e.hits)
          this.inc({ ...labels, outcome: 'ok' }, e.ok)
          this.inc({ ...labels, outcome: 'rate_limited' }, e.rateLimited)
          this.inc({ ...labels, outcome: 'error' }, e.errors)
        }
      },
    })
    new Counter({
      name: 'feed_unknown_fields_total',
      help: 'Feed payloads received with a top-level field the service does not know, by feed, endpoint and field (the field is logged once when first seen)',
      labelNames: ['feed', 'endpoint', 'field'] as const,
      registers: [this.registry],
      collect() {
        this.reset()
        for (const u of self.sources.unknownFields?.() ?? []) this.inc({ feed: u.feed, endpoint: u.endpoint, field: u.field }, u.count)
      },
    })
    new Gauge({
      name: 'feed_cache_ttl_seconds',
      help: 'Current cache TTL of each cached feed endpoint (15 s, +15 s per HTTP 429, at most 300 s)',
      labelNames: ['feed', 'endpoint'] as const,
      registers: [this.registry],
      collect() {
        this.reset()
        for (const e of self.sources.feeds?.() ?? []) if (e.ttlS !== undefined) this.set({ feed: e.feed, endpoint: e.endpoint }, e.ttlS)
      },
    })
    new Gauge({
      name: 'db_pool_connections_in_use',
      help: 'Database operations in progress (statements and transactions), each holding or waiting for a pool connection',
      registers: [this.registry],
      collect() {
        this.set(self.sources.pool?.inUse() ?? 0)
      },
    })
    new Gauge({
      name: 'db_pool_connections_max',
      help: 'Size of the database connection pool (DB_POOL_MAX; 1 on the embedded database)',
      registers: [this.registry],
      collect() {
        this.set(self.sources.pool?.max() ?? 0)
      },
    })
    new Gauge({
      name: 'db_available',
      help: '1 while the database answers, 0 while the service answers 503 for it',
      registers: [this.registry],
      collect() {
        this.set(self.sources.pool ? (self.sources.pool.available() ? 1 : 0) : 0)
      },
    })
    new Gauge({
      name: 'rollup_refresh_lag_seconds',
      help: 'How far each service-refreshed rollup is materialized behind now (now minus its watermark, as of the last refresh); newer rows are aggregated live',
      labelNames: ['rollup'] as const,
      registers: [this.registry],
      collect() {
        this.reset()
        const now = Date.now()
        for (const [rollup, at] of self.rollupWatermarks) this.set({ rollup }, Math.max(0, (now - at) / 1000))
      },
    })
    new Gauge({
      name: 'event_stream_clients',
      help: 'Open event streams (GET /api/v1/events/stream) on this process',
      registers: [this.registry],
      collect() {
        this.set(self.sources.stream?.().clients ?? 0)
      },
    })
    new Counter({
      name: 'event_stream_total',
      help: 'Event stream counts on this process: events broadcast, streams refused by the caps, streams closed for not reading',
      labelNames: ['what'] as const,
      registers: [this.registry],
      collect() {
        const s = self.sources.stream?.()
        this.reset()
        if (!s) return
        this.inc({ what: 'sent' }, s.sent)
        this.inc({ what: 'refused' }, s.refused)
        this.inc({ what: 'slow_closed' }, s.slowClosed)
      },
    })
    new Counter({
      name: 'webhook_deliveries_total',
      help: 'Webhook delivery attempts made by this process, by outcome (failed attempts are retried; abandoned after 24 hours)',
      labelNames: ['outcome'] as const,
      registers: [this.registry],
      collect() {
        const a = self.sources.webhooks?.attempts()
        this.reset()
        if (!a) return
        for (const [outcome, n] of Object.entries(a)) this.inc({ outcome }, n)
      },
    })
    // Both from one read, by the one registered first (its collect runs before either is written out).
    let failing: Gauge<'webhook'> | null = null
    new Gauge({
      name: 'webhook_backlog',
      help: 'Deliveries waiting per webhook subscription (the same on every process: read from the database)',
      labelNames: ['webhook'] as const,
      registers: [this.registry],
      async collect() {
        this.reset()
        failing?.reset()
        const rows = await self.sources.webhooks?.backlog().catch(() => null)
        for (const r of rows ?? []) {
          this.set({ webhook: String(r.id) }, r.pending)
          failing?.set({ webhook: String(r.id) }, r.failing ? 1 : 0)
        }
      },
    })
    failing = new Gauge({
      name: 'webhook_failing',
      help: '1 while a webhook subscription\'s last attempt failed',
      labelNames: ['webhook'] as const,
      registers: [this.registry],
    })
    if (opts.processMetrics) {
      // Process CPU, memory and event-loop figures. Their collectors have broken on Bun
      // before: a failure costs those figures, never the service's own.
      try {
        collectDefaultMetrics({ register: this.registry })
      } catch {
        // the service's own metrics above are enough
      }
    }
  }

  /** Where the counts read at scrape time live. */
  watch(sources: MetricSources): this {
    this.sources = { ...this.sources, ...sources }
    return this
  }

  /**
   * One HTTP request answered. `route` is the route pattern (bounded), never the raw path;
   * a method outside the standard ones counts as OTHER (any token is a valid method).
   */
  observeHttp(method: string, route: string, status: number, seconds: number): void {
    this.http.observe(HTTP_METHODS.has(method) ? method : 'OTHER', route, status, seconds)
  }

  /** One collector run, as its log line reports it. */
  collectorRun(collector: string, outcome: CollectorOutcome, seconds: number, written: Record<string, number> = {}): void {
    this.runDuration.observe({ collector, outcome }, seconds)
    for (const [dataset, n] of Object.entries(written)) if (n > 0) this.rowsWritten.inc({ collector, dataset }, n)
    if (outcome === 'written' || outcome === 'unchanged') this.lastSuccess.set({ collector }, Date.now() / 1000)
  }

  /** One rollup refresh; on success, the rollups' watermarks it left. */
  rollupRefresh(seconds: number, watermarks: Record<string, Date> | null): void {
    this.rollupDuration.observe({ outcome: watermarks ? 'ok' : 'failed' }, seconds)
    if (watermarks) for (const [name, at] of Object.entries(watermarks)) this.rollupWatermarks.set(name, at.getTime())
  }

  /** The Prometheus text exposition format. */
  text(): Promise<string> {
    return this.registry.metrics()
  }

  get contentType(): string {
    return this.registry.contentType
  }
}
