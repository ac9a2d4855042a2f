/** The API shapes the pages read (docs/api.md; the OpenAPI document at /openapi/json). */
export interface PlayerCount {
  capturedAt: string
  gameActive: number
  game1: { pcstore: number; console: number; total: number }
  game2: { pcstore: number; console: number; total: number }
  all: { pcstore: number; console: number; total: number }
  sources: { game1: string; game2: string; gameActive: string }
  dataCapturedAt?: string | null
  dataAgeSeconds?: number | null
}

export interface Stat {
  value: number
  at: string
}

export interface DiverHistory {
  range: string
  source: 'api' | 'pcstore'
  bucketSeconds: number
  from: string
  to: string
  points: { t: string; v: number }[]
  stats: { current: number | null; peak: Stat | null; low: Stat | null; avg: number | null }
  coverage?: number
}

export interface PlanetWarInfo {
  indexID: number
  warID: number
  owner: number
  health: number
  maxHealth: number
  regenPerSecond: number
  players: number
  planetName: string
  sectorName: string | null
}

export interface WarState {
  war: { warID: number; startDate?: string | null; endDate?: string | null }
  planets: PlanetWarInfo[]
  dataCapturedAt?: string | null
  dataAgeSeconds?: number | null
}

export interface WarStats {
  at: string
  stats: Record<string, number>
  dataCapturedAt?: string | null
  dataAgeSeconds?: number | null
}

export interface Liberation extends Projection {
  planetIndex: number
  planetName: string
  sectorName: string | null
  owner: number | null
  libPct: number | null
  players: number | null
  regenPctPerHour: number | null
  impactPctPerHour: number | null
  eventId: number | null
}

export interface LiberationAnswer {
  warID: number
  asOf: string
  windowHours: number
  frozenSince: string | null
  items: Liberation[]
}

export interface OrderTask {
  index: number
  type: number
  done: boolean
  value: number | null
  target: number | null
  fraction: number | null
  /** Added with the orders in words (docs/api.md "War intelligence"); absent on older servers. */
  kind?: string
  description?: string
  targets?: { planetIndex: number; name: string }[]
  progressPct?: number
  ratePerHour?: number | null
  rateSamples?: number
  projectedAtExpiry?: number | null
  onTrack?: boolean | null
}

export interface MajorOrder {
  orderId32: number
  title: string | null
  briefing: string | null
  description: string | null
  status: 'active' | 'completed' | 'failed' | 'withdrawn'
  tasksDone: number
  tasksTotal: number
  expiresAt: string
  completedAt: string | null
  firstSeenAt: string
  lastSeenAt: string
  progressAt?: string | null
  tasks: OrderTask[]
  rewards?: { type: number; id32: number; amount: number; kind?: string }[]
  rewardMedals?: number | null
  onTrack?: boolean | null
}

export interface MajorOrders {
  warID: number
  asOf: string
  frozenSince?: string | null
  items: MajorOrder[]
}

export type Outlook = 'winning' | 'losing' | 'stalemate' | 'unknown'

/** A front's rate, ETA and outlook, as /campaigns and /planets/liberation answer them. */
export interface Projection {
  ratePctPerHour: number | null
  samples: number
  since: string | null
  outlook: Outlook
  eta: string | null
  etaHours: number | null
  deadline: string | null
  requiredRatePctPerHour: number | null
  marginHours: number | null
  capturedAt: string | null
  ageSeconds: number | null
}

/** A campaign of the latest full-status tick (/campaigns). */
export interface Campaign extends Projection {
  campaignId: number
  planetIndex: number
  planetName: string
  sectorName: string | null
  /** `liberation`, `defense`, or the campaign type's name. */
  type: string
  typeId: number
  count: number
  factionId: number | null
  faction: string | null
  owner: number | null
  players: number | null
  eventId: number | null
  firstSeenAt: string | null
  progressPct: number | null
}

export interface Campaigns {
  warID: number
  asOf: string
  windowHours: number
  at: string | null
  dataAgeSeconds: number | null
  frozenSince: string | null
  items: Campaign[]
  /** The tick's attack lines: from a planet to the planet it attacks. */
  attacks: { source: number; target: number; lanes: number }[]
}

/** A row of /planets (the lookup table, every stored war). */
export interface PlanetRow {
  warID: number
  index: number
  name: string
  sector: string | null
  biome: string | null
  position: { x: number; y: number } | null
  maxHealth: number
  initialOwner: number
  disabled: boolean
  waypoints: number[]
  world?: {
    biome: { key: string; name: string | null; description: string | null } | null
    hazards: { key: string; name: string | null; description: string | null }[]
    regions: { index: number; hash: number; name: string | null; description: string | null }[]
  }
  effects?: { id: number; name: string | null; description: string | null }[]
}

/** /health/ready (outside /api/v1): how much history each dataset holds. */
export interface Ready {
  status: 'ready' | 'unavailable'
  checks?: { database: string }
  history?: Record<string, { oldest: string | null; newest: string | null }>
}

export interface TrendWindow {
  from: string | null
  to: string | null
  /** Share of the window the stored war summaries span (0..1). */
  coverage: number
  deltas: Record<string, number> | null
  divers: { from: string; to: string; fromValue: number; toValue: number; change: number } | null
}

export interface Trends {
  warID: number
  asOf: string
  /** The war's oldest stored war summary; null before the first. */
  since: string | null
  windows: Record<string, TrendWindow>
}

export interface TimelineItem {
  at: string
  type: string
  planetIndex?: number | null
  planetName?: string | null
  title?: string | null
  message?: string | null
  fromOwner?: number | null
  toOwner?: number | null
  race?: number | null
}

export interface Paged<T> {
  items: T[]
  page: number
  limit: number
  totalResults: number
  totalPages: number
}

export interface PlanetHistory {
  warId: number
  planetIndex: number
  maxHealth: number
  from: string
  to: string
  points: { t: string; libPct: number; players: number; owner: number; health: number; regenPerSecond: number }[]
}

export interface Dispatch {
  id: number
  warID: number
  publishedAt: string
  publishedWarTime: number
  type: number
  /** Null when no text was collected in the language asked for. */
  message: string | null
}

/** /campaigns/:campaignId/history */
export interface CampaignHistory {
  warID: number
  campaignId: number
  planetIndex: number
  type: string
  eventId: number | null
  firstSeenAt: string
  lastSeenAt: string
  points: { t: string; progressPct: number; players: number | null }[]
}
