/**
 * The major order as players read it (/major-orders): its title and briefing, a live
 * countdown, each task in words with its planets linked, its progress, where it is
 * projected to stand at expiry (on track or not) and the reward in words.
 */
import { barOf, countdown, defenseBarText, duration, h, int, pct, utc } from './common.ts'
import { barWord, outlookText } from './campaigns.ts'
import type { Campaign, MajorOrder, OrderTask } from './types.ts'

/** The feed's titles are often just "MAJOR ORDER": then the heading says what kind of order it is. */
const GENERIC_TITLE = /^\s*(major order|order)\s*$/i

const KIND_WORDS: Record<string, string> = {
  extract: 'extraction',
  eradicate: 'eradication',
  'complete-missions': 'missions',
  'complete-operations': 'operations',
  liberation: 'liberation',
  defense: 'defense',
  control: 'hold',
  expand: 'expansion',
}

export function orderHeading(o: MajorOrder): string {
  if (o.title && !GENERIC_TITLE.test(o.title)) return o.title
  const kinds = [...new Set(o.tasks.map((t) => t.kind).filter((k): k is string => !!k && k in KIND_WORDS))].map((k) => KIND_WORDS[k]!)
  if (kinds.length === 0) return 'Major order'
  if (kinds.length > 3) return `Major order: ${o.tasksTotal} tasks on every front`
  return `Major order: ${kinds.join(', ')}`
}

/** "75 medals", "1 medal", "250 of reward type 2". */
export function rewardText(o: MajorOrder): string | null {
  const rewards = o.rewards ?? []
  if (rewards.length === 0) return o.rewardMedals ? `${int(o.rewardMedals)} medal${o.rewardMedals === 1 ? '' : 's'}` : null
  return rewards
    .map((r) => {
      const kind = r.kind ?? `type-${r.type}`
      if (kind === 'medals') return `${int(r.amount)} medal${r.amount === 1 ? '' : 's'}`
      const m = /^type-(\d+)$/.exec(kind)
      return m ? `${int(r.amount)} of reward type ${m[1]}` : `${int(r.amount)} ${kind}`
    })
    .join(' and ')
}

/** The task's words with its target planets as links to their pages. */
function taskWords(t: OrderTask): (Node | string)[] {
  const text = t.description ?? `Task type ${t.type}`
  const targets = (t.targets ?? []).filter((p) => p.name && text.includes(p.name))
  if (targets.length === 0) return [text]
  const out: (Node | string)[] = []
  let rest = text
  for (const p of targets) {
    const i = rest.indexOf(p.name)
    if (i < 0) continue
    out.push(rest.slice(0, i), h('a', { href: `/planet/${p.planetIndex}` }, p.name))
    rest = rest.slice(i + p.name.length)
  }
  out.push(rest)
  return out
}

/** A big count short on a phone: 500,000,000 → "500M". */
const SHORT = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 })
const amount = (v: number) => (Math.abs(v) >= 1e5 ? SHORT.format(v) : int(v))

function projection(o: MajorOrder, t: OrderTask, frozen: boolean): HTMLElement {
  let text: string
  let cls = 'unknown'
  if (t.done) {
    text = 'done'
    cls = 'yes'
  } else if (o.status !== 'active') {
    text = o.status === 'failed' ? 'not done when the order expired' : o.status === 'withdrawn' ? 'not done when the order was withdrawn' : '–'
    cls = o.status === 'failed' ? 'no' : 'unknown'
  } else if (frozen) {
    text = 'no projection while the war clock stands still'
  } else if (t.projectedAtExpiry === null || t.projectedAtExpiry === undefined) {
    text = 'no projection yet: it needs two progress readings within 6 h'
  } else {
    const at = t.projectedAtExpiry
    const verdict = t.onTrack ? 'on track' : t.onTrack === false ? 'not on track' : 'cannot tell'
    if (t.target && at >= t.target && t.value !== null && t.ratePerHour && t.ratePerHour > 0) {
      // Past the goal before the end: when, rather than an overshoot nobody will see.
      text = `at this rate the goal is reached in ${duration(((t.target - t.value) / t.ratePerHour) * 3600)}, before the order ends: ${verdict}`
    } else if (t.target !== null && t.target <= 1) {
      text = `${at >= 1 ? 'projected done' : 'not projected done'} by the end: ${verdict}`
    } else {
      const share = t.target ? ` (${pct((at / t.target) * 100, 0)})` : ''
      text = `projected at expiry: ${amount(at)}${t.target ? ` of ${amount(t.target)}` : ''}${share}: ${verdict}`
    }
    cls = t.onTrack ? 'yes' : t.onTrack === false ? 'no' : 'unknown'
  }
  return h('span', { class: `proj ${cls}`, 'data-on-track': t.onTrack === null || t.onTrack === undefined ? 'unknown' : String(t.onTrack) }, text)
}

function verdict(o: MajorOrder, frozen: boolean): HTMLElement {
  let text: string
  let cls: string
  if (o.status === 'completed') [text, cls] = ['Completed', 'yes']
  else if (o.status === 'failed') [text, cls] = ['Failed', 'no']
  else if (o.status === 'withdrawn') [text, cls] = ['Withdrawn', 'unknown']
  else if (frozen) [text, cls] = ['Clock stopped: no projection', 'unknown']
  else if (o.onTrack === true) [text, cls] = ['On track', 'yes']
  else if (o.onTrack === false || o.tasks.some((t) => t.onTrack === false)) [text, cls] = ['Not on track', 'no']
  else [text, cls] = ['Too early to project', 'unknown']
  return h('span', { class: `verdict ${cls}`, 'data-verdict': cls }, text)
}

export function orderCard(o: MajorOrder, frozen: boolean, fronts: Map<number, Campaign> = new Map()): HTMLElement {
  const when =
    o.status === 'completed'
      ? `completed ${utc(o.completedAt)}`
      : o.status === 'failed'
        ? `expired ${utc(o.expiresAt)}`
        : o.status === 'withdrawn'
          ? `withdrawn (last seen ${utc(o.lastSeenAt)})`
          : null
  const reward = rewardText(o)
  return h(
    'li',
    { class: `order ${o.status}`, 'data-order': o.orderId32 },
    h('div', { class: 'order-head' }, h('h3', { class: 'order-title' }, orderHeading(o)), h('span', { class: `badge ${o.status}`, 'data-status': o.status }, o.status)),
    o.briefing ? h('p', { class: 'brief' }, o.briefing) : null,
    o.description && o.description !== o.briefing ? h('p', { class: 'brief' }, o.description) : null,
    h(
      'p',
      { class: 'order-meta' },
      verdict(o, frozen),
      h('span', { class: 'tasks-count' }, `${o.tasksDone} of ${o.tasksTotal} tasks`),
      o.status === 'active' ? h('span', { class: 'order-time' }, countdown(o.expiresAt, 'ends in ', 'ended'), ` (${utc(o.expiresAt)})`) : h('span', {}, when),
    ),
    h(
      'ol',
      { class: 'tasks' },
      ...o.tasks.map((t) => {
        const p = t.progressPct ?? (t.done ? 100 : (t.fraction ?? 0) * 100)
        const figures = t.target !== null && t.value !== null && t.target > 1 ? `${amount(t.value)} of ${amount(t.target)}` : null
        return h(
          'li',
          { class: `task${t.done ? ' done' : ''}`, 'data-kind': t.kind ?? '' },
          h('p', { class: 'task-words' }, h('span', { class: 'tick', 'aria-hidden': 'true' }, t.done ? '✓' : '○'), h('span', { class: 'sr' }, t.done ? 'Done: ' : 'To do: '), ...taskWords(t)),
          h('div', { class: 'task-bar' }, barOf(p, `wide ${t.done ? 'done' : 'players'}`), h('span', { class: 'task-pct' }, `${p.toFixed(p > 0 && p < 10 ? 2 : 1)} %`), h('span', { class: 'task-figures', title: figures ? `${int(t.value)} of ${int(t.target)}` : undefined }, figures ?? '')),
          h('p', { class: 'task-proj' }, projection(o, t, frozen), t.ratePerHour ? h('span', { class: 'muted' }, ` · ${amount(t.ratePerHour)}/h`) : null),
          // Its planets' fronts now: what decides a planet task.
          ...(t.done ? [] : (t.targets ?? []).flatMap((p) => {
            const c = fronts.get(p.planetIndex)
            if (!c) return []
            // Its front's ETA against the order's end: what the task's own 0/1 progress cannot tell.
            const when = c.eta && c.outlook === 'winning' && !frozen ? (Date.parse(c.eta) <= Date.parse(o.expiresAt) ? ', before the order ends' : ', after the order ends') : ''
            return [h('p', { class: 'task-front' }, `Its front: ${p.name}, ${c.type === 'defense' ? `defense, ${defenseBarText(c.progressPct)}` : `campaign, ${pct(c.progressPct)} ${barWord(c)}`}, ${outlookText(c, frozen)}${when}.`)]
          })),
        )
      }),
    ),
    reward ? h('p', { class: 'reward' }, h('strong', {}, 'Reward: '), reward) : null,
    o.status === 'active' && o.progressAt ? h('p', { class: 'age' }, `Progress as of ${utc(o.progressAt)} (${duration((Date.now() - Date.parse(o.progressAt)) / 1000)} ago).`) : null,
  )
}
