import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startSimulator, type Simulator } from '../../src/sim/server.ts'
import type { SimState } from '../../src/sim/world.ts'
import { parseWarStatus } from '../../src/feeds/upstream.ts'

let sim: Simulator
beforeAll(() => {
  sim = startSimulator({ port: 0, seed: 21, speed: 0, faults: [{ kind: 'rate_limit', endpoint: 'warinfo', count: 1 }] })
})
afterAll(() => sim.stop())

const call = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(sim.url + path, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
  return { status: res.status, body: (res.status === 204 ? null : await res.json()) as unknown }
}

describe('control API over HTTP', () => {
  test('start-up faults apply', async () => {
    expect((await fetch(`${sim.upstreamUrl}/WarSeason/801/WarInfo`)).status).toBe(429)
    expect((await fetch(`${sim.upstreamUrl}/WarSeason/801/WarInfo`)).status).toBe(200)
  })

  test('state predicts the next Status; advance moves the war', async () => {
    const state = (await call('GET', '/control/state')).body as SimState
    const status = parseWarStatus(await (await fetch(`${sim.upstreamUrl}/warseason/801/status`)).json()).data
    expect(status.time).toBe(state.time)
    expect(status.planetStatus.reduce((n, p) => n + p.players, 0)).toBe(state.playersTotal)
    const advanced = (await call('POST', '/control/advance', { seconds: 3600 })).body as SimState
    expect(advanced.time).toBeGreaterThan(state.time)
    expect(advanced.galaxy.timePlayed).toBeGreaterThan(state.galaxy.timePlayed)
    expect((await call('POST', '/control/advance', { seconds: -1 })).status).toBe(400)
  })

  test('faults: add, list, take effect, clear; bad specs rejected', async () => {
    const added = await call('POST', '/control/faults', { kind: 'outage', feed: 'pcstore', durationMs: 60_000 })
    expect(added.status).toBe(201)
    expect(added.body).toMatchObject({ kind: 'outage', feed: 'pcstore' })
    expect((await call('GET', '/control/faults')).body).toHaveLength(1)
    expect((await fetch(`${sim.pcstoreUrl}/ISteamUserStats/GetNumberOfCurrentPlayers/v1/?appid=553850`)).status).toBe(503)
    expect((await call('DELETE', '/control/faults')).status).toBe(204)
    expect((await call('GET', '/control/faults')).body).toEqual([])
    expect((await fetch(`${sim.pcstoreUrl}/ISteamUserStats/GetNumberOfCurrentPlayers/v1/?appid=553850`)).status).toBe(200)
    const bad = await call('POST', '/control/faults', { kind: 'meteor' })
    expect(bad.status).toBe(400)
    expect((bad.body as { error: string }).error).toContain('/kind')
  })

  test('request counts and reset', async () => {
    const before = (await call('GET', '/control/requests')).body as Record<string, number>
    await fetch(`${sim.upstreamUrl}/v2/Assignment/War/801`)
    const after = (await call('GET', '/control/requests')).body as Record<string, number>
    expect(after['upstream:assignment']).toBe((before['upstream:assignment'] ?? 0) + 1)
    await call('POST', '/control/advance', { seconds: 7200 })
    const reset = (await call('POST', '/control/reset')).body as SimState
    expect(reset.tick).toBe(0)
    expect((await call('GET', '/control/requests')).body).toEqual({})
  })

  test('responds like the real feeds where documented', async () => {
    const missing = await fetch(`${sim.communityUrl}/api/v1/planets`)
    expect(missing.status).toBe(400)
    expect(missing.headers.get('www-authenticate')).toBe('X-Super-Client')
    expect(await missing.json()).toEqual({ message: 'The X-Super-Client and X-Super-Contact headers are required' })
    const unknownApp = await fetch(`${sim.pcstoreUrl}/ISteamUserStats/GetNumberOfCurrentPlayers/v1/?appid=1`)
    expect(unknownApp.status).toBe(404)
    expect(await unknownApp.json()).toEqual({ response: { result: 42 } })
    expect(await (await fetch(`${sim.upstreamUrl}/WarSeason/current/WarID`)).json()).toEqual({ id: 801 })
  })
})

test('CLI starts, prints its URLs and serves', async () => {
  const proc = Bun.spawn([process.execPath, 'src/sim/main.ts', '--port', '0', '--seed', '4', '--fault', 'freeze'], {
    cwd: `${import.meta.dir}/../..`, stdout: 'pipe', stderr: 'pipe',
  })
  try {
    const reader = proc.stdout.getReader()
    const { value } = await reader.read()
    const line = JSON.parse(new TextDecoder().decode(value).split('\n')[0]!) as { url: string; upstreamUrl: string; faults: number }
    expect(line.faults).toBe(1)
    const state = (await (await fetch(`${line.url}/control/state`)).json()) as SimState
    expect(state).toMatchObject({ seed: 4, frozen: true, currentWarId: 801 })
    expect((await fetch(`${line.upstreamUrl}/WarSeason/801/Status`)).status).toBe(200)
  } finally {
    proc.kill()
    await proc.exited
  }
})
