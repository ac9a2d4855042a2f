/**
 * What a webhook delivery sends: its body (the event as the stream sends it, or a Discord
 * webhook body) and its signature headers, after the Standard Webhooks scheme
 * (https://www.standardwebhooks.com): `webhook-id` (the delivery id, the same on every
 * retry), `webhook-timestamp` (seconds) and `webhook-signature`:
 * `v1,` + base64(HMAC-SHA256(secret, id + "." + timestamp + "." + body)), where the
 * secret is the base64 after `whsec_`. docs/api.md "Webhooks" has the receiver's recipe.
 */
import { createHmac, randomBytes } from 'node:crypto'
import type { LoggedEvent } from '../storage/events.ts'
import type { WebhookFormat } from '../storage/webhooks.ts'
import { eventBody } from './stream.ts'

export const newSecret = () => `whsec_${randomBytes(24).toString('base64')}`

/** The delivery id: one per (subscription, event), stable across retries and processes. */
export const deliveryId = (webhookId: number, eventId: number) => `evt_${eventId}_wh_${webhookId}`

export function signature(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64')
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`
}

export function signedHeaders(secret: string, id: string, timestamp: number, body: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signature(secret, id, timestamp, body),
  }
}

const OWNERS: Record<number, string> = { 1: 'Humans', 2: 'Terminids', 3: 'Automatons', 4: 'Illuminate' }
const owner = (n: unknown) => (typeof n === 'number' ? (OWNERS[n] ?? `faction ${n}`) : 'unknown')

/** Discord embed colours: players' wins green, losses red, orders gold, the rest grey-blue. */
const COLOURS = { win: 0x2ecc71, loss: 0xe74c3c, order: 0xf1c40f, info: 0x5865f2 }

/** A headline and colour per event type; the planet, order or dispatch says the rest. */
function headline(e: Record<string, unknown>): { title: string; colour: number; text?: string } {
  const planet = (e.planetName as string | null) ?? (e.planetIndex != null ? `planet ${e.planetIndex}` : '')
  const text = (v: unknown) => (typeof v === 'string' ? v : v && typeof v === 'object' ? Object.values(v)[0] as string : undefined)
  switch (e.type) {
    case 'planet_liberated': return { title: `${planet} liberated`, colour: COLOURS.win, text: `Taken from the ${owner(e.fromOwner)}.` }
    case 'planet_lost': return { title: `${planet} lost`, colour: COLOURS.loss, text: `Taken by the ${owner(e.toOwner)}.` }
    case 'planet_owner_changed': return { title: `${planet} changed hands`, colour: COLOURS.info, text: `From the ${owner(e.fromOwner)} to the ${owner(e.toOwner)}.` }
    case 'defense_started': return { title: `Defend ${planet}`, colour: COLOURS.loss, text: `The ${owner(e.race)} attack ${planet}.` }
    case 'defense_won': return { title: `${planet} defended`, colour: COLOURS.win }
    case 'defense_lost': return { title: `Defense of ${planet} failed`, colour: COLOURS.loss }
    case 'campaign_started': return { title: `Campaign on ${planet}`, colour: COLOURS.info }
    case 'campaign_ended': return { title: `Campaign on ${planet} ended`, colour: COLOURS.info }
    case 'major_order_issued': return { title: 'New major order', colour: COLOURS.order, text: text(e.title) }
    case 'major_order_completed': return { title: 'Major order completed', colour: COLOURS.win, text: text(e.title) }
    case 'major_order_failed': return { title: 'Major order failed', colour: COLOURS.loss, text: text(e.title) }
    case 'major_order_withdrawn': return { title: 'Major order withdrawn', colour: COLOURS.info, text: text(e.title) }
    case 'dispatch': return { title: 'Dispatch', colour: COLOURS.info, text: text(e.message) }
    case 'war_started': return { title: `War ${e.warID} started`, colour: COLOURS.info }
    case 'event_corrected': {
      const c = e.correction as { corrects: number | null; was: { type: string }; now: { type: string } } | null
      const said = (type: string | undefined) => (type === 'defense_won' ? 'defended' : type === 'defense_lost' ? 'lost' : String(type))
      return {
        title: `Correction: ${planet} was ${said(c?.now.type)}`,
        colour: c?.now.type === 'defense_won' ? COLOURS.win : COLOURS.loss,
        text: `Earlier reported ${said(c?.was.type)}${c?.corrects != null ? ` (event ${c.corrects})` : ''}; the ticks stored since show it ${said(c?.now.type)}.`,
      }
    }
    case 'tick': return { title: 'War status stored', colour: COLOURS.info, text: `${e.planets} planets at war time ${e.warTime}.` }
    case 'player-count': return { title: 'Divers online', colour: COLOURS.info, text: `${Number(e.players).toLocaleString('en-US')} divers.` }
    default: return { title: String(e.type), colour: COLOURS.info }
  }
}

/** The body of a delivery, as sent (and signed). */
export function deliveryBody(format: WebhookFormat, event: LoggedEvent): string {
  const body = eventBody(event)
  if (format === 'json') return JSON.stringify(body)
  const h = headline(body)
  // Discord caps an embed's description at 4096 characters.
  const description = h.text ? h.text.slice(0, 4000) : undefined
  return JSON.stringify({
    embeds: [{ title: h.title.slice(0, 256), ...(description ? { description } : {}), color: h.colour, timestamp: body.at, footer: { text: `${body.type} · event ${body.id}` } }],
    allowed_mentions: { parse: [] },
  })
}
