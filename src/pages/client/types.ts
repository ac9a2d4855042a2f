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

export interface Liberation {
  planetIndex: number
  planetName: string
  sectorName: string | null
  owner: number | null
  libPct: number | null
  players: number | null
  ratePctPerHour: number | null
  regenPctPerHour: number | null
  impactPctPerHour: number | null
  eventId: number | null
  samples: number
  since: string | null
  outlook: 'winning' | 'losing' | 'stalemate' | 'unknown'
  eta: string | null
  etaHours: number | null
  deadline: string | null
  marginHours: number | null
  capturedAt: string | null
  ageSeconds: number | null
}

export interface LiberationAnswer {
  warID: number
  asOf: string
  windowHours: number
  frozenSince: string | null
  items: Liberation[]
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
  tasks: { index: number; type: number; done: boolean; value: number | null; target: number | null; fraction: number | null }[]
}

export interface TrendWindow {
  from: string | null
  to: string | null
  deltas: Record<string, number> | null
  divers: { from: string; to: string; fromValue: number; toValue: number; change: number } | null
}

export interface Trends {
  warID: number
  asOf: string
  windows: Record<string, TrendWindow>
}

export interface TimelineItem {
  at: string
  type: string
  planetName?: string
  title?: string
  message?: string
  toOwner?: number
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
