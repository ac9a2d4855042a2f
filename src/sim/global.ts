/**
 * The war-wide parts of a Status (2025+):
 * - global events: briefings and results, each with an expiry (war time), linked to an
 *   order (`assignmentId32`) and planets; texts in the request's language; an event leaves
 *   the Status when it expires;
 * - a global resource: an enemy fleet's strength (the 2025 capture's meter), drained by the
 *   players fighting that enemy and slowly rebuilt; emptied, it is rebuilt in full before
 *   it drains again.
 *
 * Determinism: ids hash (seed, event number), the resource follows the war's steps.
 */
import type { GlobalEvent, GlobalResource } from '../feeds/upstream-2025.ts'
import { HOUR_S, SURFACE_STEP_S } from './constants.ts'
import { localize } from './languages.ts'
import { hash32 } from './random.ts'

// Salts keep independent draws apart (war.ts S and the other parts' salts are below 40).
const S = { eventId: 61, titleId: 62, messageId: 63 } as const

/** At most this many events listed at once (the oldest go first); expiry is what usually ends them. */
const MAX_EVENTS = 6

/** An event as the war announces it; ids are filled in. */
export interface NewGlobalEvent {
  title: string
  message: string
  /** 0 stratagem, 1 briefing, 2 success, 3 fail (globalEvents_flags table). */
  flag: number
  race?: number
  assignmentId32?: number
  planetIndices?: number[]
  effectIds?: number[]
  expireTime: number
}

export class GlobalEvents {
  private events: GlobalEvent[]

  constructor(
    private readonly seed: number,
    initial: readonly GlobalEvent[],
    private nextId: number,
  ) {
    this.events = initial.map((e) => ({ ...e, effectIds: [...e.effectIds], planetIndices: [...e.planetIndices] }))
  }

  /** Lists a new event; returns its id. */
  add(e: NewGlobalEvent): number {
    const eventId = this.nextId++
    const idOf = (salt: number) => hash32(this.seed, salt, eventId)
    this.events = [
      ...this.events.slice(-(MAX_EVENTS - 1)),
      {
        eventId, id32: idOf(S.eventId), portraitId32: 0,
        title: e.title, titleId32: idOf(S.titleId), message: e.message, messageId32: e.message === '' ? 0 : idOf(S.messageId),
        race: e.race ?? 0, flag: e.flag, introMediaId32: 0, outroMediaId32: 0, assignmentId32: e.assignmentId32 ?? 0,
        effectIds: [...(e.effectIds ?? [])], planetIndices: [...(e.planetIndices ?? [])], expireTime: e.expireTime,
      },
    ]
    return eventId
  }

  /** Moves an event's expiry (an election's briefing when the election is staged to end sooner). */
  retime(eventId: number, expireTime: number): void {
    for (const e of this.events) if (e.eventId === eventId) e.expireTime = expireTime
  }

  /** Gives the events without an expiry (the 2024 capture's) one, `at(k)` for the k-th. */
  expireUnset(at: (k: number) => number): void {
    let k = 0
    for (const e of this.events) if (e.expireTime === undefined) e.expireTime = at(k++)
  }

  /** Drops the events expired at war time `t`. */
  expire(t: number): void {
    if (this.events.some((e) => e.expireTime !== undefined && e.expireTime <= t)) this.events = this.events.filter((e) => e.expireTime === undefined || e.expireTime > t)
  }

  get count(): number {
    return this.events.length
  }

  /** The Status's `globalEvents`, texts in `language` (default en-US). */
  status(language?: string): GlobalEvent[] {
    return this.events.map((e) => ({
      ...e,
      ...(e.title === undefined ? {} : { title: localize(e.title, language) }),
      ...(e.message === undefined ? {} : { message: localize(e.message, language) }),
      effectIds: [...e.effectIds],
      planetIndices: [...e.planetIndices],
    }))
  }
}

/** How the fleet strength moves: drained per player fighting its enemy, rebuilt all the while, refilled in full once empty. */
const DRAIN_PER_PLAYER_S = 0.01
const REBUILD_S = 5 * 24 * HOUR_S
const REFILL_S = 8 * HOUR_S

/** What a step of the resource did: emptied or full again (the war announces both). */
export type ResourceTurn = 'depleted' | 'rebuilt' | undefined

export class FleetStrength {
  private value: number
  private refilling = false

  constructor(
    readonly id32: number,
    readonly maxValue: number,
    value: number,
    /** The faction whose fleet it is. */
    readonly race: number,
  ) {
    this.value = value
  }

  /** A war minute (SURFACE_STEP_S) with `fighting` players against its race. */
  step(fighting: number): ResourceTurn {
    const seconds = SURFACE_STEP_S
    if (this.refilling) {
      this.value = Math.min(this.maxValue, this.value + (this.maxValue / REFILL_S) * seconds)
      if (this.value < this.maxValue) return undefined
      this.refilling = false
      return 'rebuilt'
    }
    this.value = Math.min(this.maxValue, Math.max(0, this.value + (this.maxValue / REBUILD_S - fighting * DRAIN_PER_PLAYER_S) * seconds))
    if (this.value > 0) return undefined
    this.refilling = true
    return 'depleted'
  }

  /** The Status's `globalResources` entry. */
  status(): GlobalResource {
    return { id32: this.id32, currentValue: Math.round(this.value), maxValue: this.maxValue, flags: 0 }
  }
}
