/**
 * HTTP face of the simulator: the three feeds under one port, plus a control API.
 *   {url}/upstream/api/...                         upstream (paths case-insensitive, as upstream), the 2025
 *                                                  endpoints included: /SpaceStation/{war}/{id32}, /WarSeason/GalacticWarEffects
 *   {url}/community/api/v1/planets                 community (X-Super-* headers required)
 *   {url}/pcstore/ISteamUserStats/GetNumberOfCurrentPlayers/v1/?appid=
 *   {url}/control/...                              state, faults, reset, clock, request counts
 */
import { communityPlanets } from './community-view.ts'
import { FaultBoard, faultResponse, toFaultSpec, type Fault, type FaultSpec, type SimFeed } from './faults.ts'
import { languageOf } from './languages.ts'
import { World, type SimState } from './world.ts'

export interface SimulatorOptions {
  /** 0 picks a free port. Default 4010. */
  port?: number
  hostname?: string
  seed?: number
  /** Time acceleration; 0 = time moves only through control.advance(). Default 1. */
  speed?: number
  faults?: FaultSpec[]
  /**
   * A world to serve as it stands (its seed, speed and clock: `seedDemoHistory`'s, which
   * goes on from the end of the demo's history) instead of a new one; `seed` and `speed`
   * are then its own. `reset()` still starts a new world from that seed.
   */
  world?: World
}

export interface SimControl {
  state(): SimState
  addFault(spec: FaultSpec): Fault
  faults(): Fault[]
  clearFaults(): void
  /** Fresh world from the same seed (clock restarts), no faults, request counts zeroed. */
  reset(): void
  /** Moves the simulated clock forward by `seconds` of real time. */
  advance(seconds: number): SimState
  /**
   * Requests received per `feed:endpoint`, faulted ones included; requests for texts
   * (assignment, newsfeed) are also counted per language as `feed:endpoint@language`.
   */
  requests(): Record<string, number>
}

export interface Simulator {
  url: string
  upstreamUrl: string
  communityUrl: string
  pcstoreUrl: string
  control: SimControl
  stop(): Promise<void>
}

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' }
const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { ...JSON_HEADERS, ...headers } })

interface FeedRoute {
  feed: SimFeed
  endpoint: string
  /** Undefined when the route exists but has nothing for these parameters (e.g. unknown war). */
  render: () => unknown
  /** Response when render() has nothing to serve. */
  missing?: () => Response
  /** The language of a request for texts (assignment, newsfeed), when it named one. */
  language?: string
}

export function startSimulator(opts: SimulatorOptions = {}): Simulator {
  const seed = opts.world?.seed ?? opts.seed ?? 1
  const speed = opts.world?.speed ?? opts.speed ?? 1
  let world = opts.world ?? new World({ seed, speed })
  const board = new FaultBoard()
  let counts: Record<string, number> = {}

  const addFault = (spec: FaultSpec): Fault => {
    const fault = board.add(spec)
    if (spec.kind === 'new_war') world.startNewWar(spec.warId)
    applyStateFaults()
    return fault
  }

  // The freeze fault is the single source of truth for the current war's clock.
  const applyStateFaults = () => {
    if (board.isActive('freeze')) {
      world.sync()
      world.freeze()
    } else world.unfreeze()
    world.sync()
  }

  const control: SimControl = {
    state: () => {
      applyStateFaults()
      return world.state()
    },
    addFault,
    faults: () => board.list(),
    clearFaults: () => {
      board.clear()
      applyStateFaults()
    },
    reset: () => {
      world = new World({ seed, speed })
      board.clear()
      counts = {}
    },
    advance: (seconds) => {
      applyStateFaults()
      world.advance(seconds)
      return world.state()
    },
    requests: () => ({ ...counts }),
  }

  for (const spec of opts.faults ?? []) addFault(spec)

  function upstreamRoute(path: string, query: URLSearchParams, headers: Headers): FeedRoute | undefined {
    if (path === '/warseason/current/warid') return { feed: 'upstream', endpoint: 'warid', render: () => ({ id: world.currentWarId }) }
    const language = languageOf(headers.get('accept-language'))
    // Not per war: the current war's effects.
    if (path === '/warseason/galacticwareffects') return { feed: 'upstream', endpoint: 'galacticwareffects', render: () => world.current().galacticWarEffects() }
    const station = /^\/spacestation\/(\d+)\/(\d+)$/.exec(path)
    if (station) {
      // An unknown war or station: an empty 404, as for the other endpoints.
      return { feed: 'upstream', endpoint: 'spacestation', render: () => world.war(Number(station[1]))?.spaceStation(Number(station[2]), language), missing: () => new Response(null, { status: 404 }) }
    }
    const match =
      /^\/warseason\/(\d+)\/(status|warinfo|wartime)$/.exec(path) ??
      /^\/(stats)\/war\/(\d+)\/summary$/.exec(path) ??
      /^\/v2\/(assignment)\/war\/(\d+)$/.exec(path) ??
      /^\/(newsfeed)\/(\d+)$/.exec(path)
    if (!match) return undefined
    const [, a = '', b = ''] = match
    const endpoint = /^\d+$/.test(a) ? b : a === 'stats' ? 'summary' : a
    const warId = Number(/^\d+$/.test(a) ? a : b)
    const war = () => world.war(warId)
    const renderers: Record<string, () => unknown> = {
      // Its global events' texts are in the request's language.
      status: () => war()?.status(language),
      warinfo: () => war()?.warInfo(),
      wartime: () => { const w = war(); return w && { time: w.time } },
      summary: () => war()?.summary(),
      assignment: () => war()?.assignments(language),
      newsfeed: () => {
        const toInt = (v: string | null) => (v === null ? undefined : Number.parseInt(v, 10))
        return war()?.newsfeed({
          maxEntries: toInt(query.get('maxEntries')),
          fromTimestamp: toInt(query.get('fromTimestamp')),
          // Without a language the real feed leaves `message` out.
          withMessage: language !== undefined,
          language,
        })
      },
    }
    const render = renderers[endpoint]
    if (!render) return undefined
    // Unknown wars: an empty 404, as ASP.NET answers.
    const texts = endpoint === 'assignment' || endpoint === 'newsfeed'
    return { feed: 'upstream', endpoint, render, missing: () => new Response(null, { status: 404 }), ...(texts && language ? { language } : {}) }
  }

  function communityRoute(path: string, query: URLSearchParams, headers: Headers): FeedRoute | undefined {
    if (path !== '/api/v1/planets') return undefined
    const client = headers.get('x-super-client') ?? query.get('x-super-client')
    const contact = headers.get('x-super-contact') ?? query.get('x-super-contact')
    if (!client || !contact) {
      return {
        feed: 'community', endpoint: 'planets', render: () => undefined,
        missing: () => json({ message: 'The X-Super-Client and X-Super-Contact headers are required' }, 400, { 'www-authenticate': 'X-Super-Client' }),
      }
    }
    const allLocales = (headers.get('accept-language') ?? '').toLowerCase().startsWith('ivl-iv')
    return { feed: 'community', endpoint: 'planets', render: () => communityPlanets(world.current(), { allLocales }) }
  }

  function pcstoreRoute(path: string, query: URLSearchParams): FeedRoute | undefined {
    if (path.replace(/\/$/, '') !== '/isteamuserstats/getnumberofcurrentplayers/v1') return undefined
    const appId = Number(query.get('appid'))
    return {
      feed: 'pcstore', endpoint: 'players',
      render: () => {
        const count = world.pcstorePlayers(appId)
        return count === undefined ? undefined : { response: { player_count: count, result: 1 } }
      },
      missing: () => json({ response: { result: 42 } }, 404),
    }
  }

  async function serveFeed(route: FeedRoute): Promise<Response> {
    const key = `${route.feed}:${route.endpoint}`
    counts[key] = (counts[key] ?? 0) + 1
    if (route.language) counts[`${key}@${route.language}`] = (counts[`${key}@${route.language}`] ?? 0) + 1
    const fault = board.take(route.feed, route.endpoint, route.language)
    applyStateFaults()
    if (fault) {
      const faulted = await faultResponse(fault, route.render)
      if (faulted) return faulted
      applyStateFaults()
    }
    const body = route.render()
    if (body === undefined) return route.missing?.() ?? new Response(null, { status: 404 })
    return json(body)
  }

  async function handleControl(path: string, req: Request): Promise<Response> {
    const route = `${req.method} ${path}`
    try {
      switch (route) {
        case 'GET /control/state':
          return json(control.state())
        case 'GET /control/faults':
          return json(control.faults())
        case 'POST /control/faults':
          return json(control.addFault(toFaultSpec(await req.json())), 201)
        case 'DELETE /control/faults':
          control.clearFaults()
          return new Response(null, { status: 204 })
        case 'POST /control/reset':
          control.reset()
          return json(control.state())
        case 'POST /control/advance': {
          const body = (await req.json()) as { seconds?: unknown }
          if (typeof body.seconds !== 'number' || !(body.seconds >= 0)) return json({ error: 'seconds must be a number >= 0' }, 400)
          return json(control.advance(body.seconds))
        }
        case 'GET /control/requests':
          return json(control.requests())
        default:
          return json({ error: `no control route ${route}` }, 404)
      }
    } catch (e) {
      return json({ error: e instanceof Error ? e.message : 'bad request' }, 400)
    }
  }

  async function handle(req: Request): Promise<Response> {
    const url = new URL(req.url)
    const path = url.pathname
    if (path.startsWith('/control/')) return handleControl(path, req)
    if (req.method !== 'GET') return new Response(null, { status: 405 })
    const lower = path.toLowerCase()
    let route: FeedRoute | undefined
    if (lower.startsWith('/upstream/api/')) route = upstreamRoute(lower.slice('/upstream/api'.length), url.searchParams, req.headers)
    else if (lower.startsWith('/community/')) route = communityRoute(lower.slice('/community'.length), url.searchParams, req.headers)
    else if (lower.startsWith('/pcstore/')) route = pcstoreRoute(lower.slice('/pcstore'.length), url.searchParams)
    return route ? serveFeed(route) : new Response(null, { status: 404 })
  }

  const server = Bun.serve({
    port: opts.port ?? 4010,
    hostname: opts.hostname ?? '127.0.0.1',
    // Slow-response faults hold a request open for a long time.
    idleTimeout: 255,
    fetch: handle,
    error: () => json({ error: 'simulator error' }, 500),
  })
  const url = `http://${server.hostname === '0.0.0.0' ? '127.0.0.1' : server.hostname}:${server.port}`
  return {
    url,
    upstreamUrl: `${url}/upstream/api`,
    communityUrl: `${url}/community`,
    pcstoreUrl: `${url}/pcstore`,
    control,
    stop: async () => {
      await server.stop(true)
    },
  }
}
