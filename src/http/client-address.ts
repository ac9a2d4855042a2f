/**
 * Who a request comes from, in a way a client cannot choose: the socket's peer, unless
 * that peer is one of the trusted proxies (TRUSTED_PROXIES); then the address that proxy
 * wrote in its forwarding header (TRUSTED_PROXY_HEADER: `X-Forwarded-For` or `Forwarded`),
 * read from the right: the right-most address that is not itself a trusted proxy. Whatever
 * a client writes in the header stands to the left of what its proxy appended, so it is
 * never read. The other header is ignored: a proxy that writes one passes the other on
 * as the client sent it.
 */
import { BlockList, isIP } from 'node:net'

export type ForwardingHeader = 'x-forwarded-for' | 'forwarded'

/** Hops of a chain read at most, from the right: more proxies than any real deployment stacks. */
const MAX_HOPS = 16
/** Longer than any address with brackets, port and zone: a hop this long is not one. */
const MAX_HOP_LENGTH = 64
/** Peers whose trust is remembered (they repeat: the proxies); past it the memory starts over. */
const MAX_REMEMBERED = 4096

export class ClientAddresses {
  private readonly trusted: BlockList | null
  private readonly remembered = new Map<string, boolean>()

  constructor(
    proxies: readonly string[],
    private readonly header: ForwardingHeader = 'x-forwarded-for',
  ) {
    this.trusted = proxies.length ? blockListOf(proxies) : null
  }

  /**
   * The client's address, normalised (an IPv4 client of a dual-stack socket is `1.2.3.4`,
   * not `::ffff:1.2.3.4`); null without a peer (a request handed to the app in process).
   */
  of(peer: string | null, headers: Headers): string | null {
    if (peer === null) return null
    let client = normalizeAddress(peer)
    if (this.trusted === null || !this.isTrusted(client)) return client
    const value = headers.get(this.header)
    if (value === null) return client
    const hops = this.header === 'forwarded' ? forwardedHops(value) : forwardedForHops(value)
    for (let i = 0; i < MAX_HOPS; i++) {
      const hop = hops.next()
      if (hop.done) return client
      // Garbage where a trusted proxy should have written an address: the last address one vouched for.
      if (hop.value === null) return client
      client = hop.value
      if (!this.isTrusted(client)) return client
    }
    return client
  }

  private isTrusted(address: string): boolean {
    const known = this.remembered.get(address)
    if (known !== undefined) return known
    const trusted = this.trusted!.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4')
    if (this.remembered.size >= MAX_REMEMBERED) this.remembered.clear()
    this.remembered.set(address, trusted)
    return trusted
  }
}

/** The trusted proxies as a block list; throws on an entry that is neither an address nor a range (config.ts validates them first). */
function blockListOf(proxies: readonly string[]): BlockList {
  const list = new BlockList()
  for (const entry of proxies) {
    const [address = '', prefix] = entry.split('/')
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4'
    if (prefix === undefined) list.addAddress(address, family)
    else list.addSubnet(address, Number(prefix), family)
  }
  return list
}

/** `::ffff:1.2.3.4` → `1.2.3.4`; IPv6 in lower case. */
export function normalizeAddress(address: string): string {
  if (address.length > 7 && (address.startsWith('::ffff:') || address.startsWith('::FFFF:'))) {
    const v4 = address.slice(7)
    if (isIP(v4) === 4) return v4
  }
  return address.includes(':') ? address.toLowerCase() : address
}

/**
 * What a client's budget is kept under: an IPv4 address itself; an IPv6 address's /64
 * (one host or home network holds a whole /64, and would otherwise have 2^64 budgets).
 */
export function clientKeyOf(address: string): string {
  if (!address.includes(':')) return address
  const bare = address.split('%')[0]!
  const [head = '', tail] = bare.split('::')
  const headGroups = head ? head.split(':') : []
  // An IPv4 tail (`64:ff9b::1.2.3.4`) holds two groups; none of them is in the /64.
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':').flatMap((g) => (g.includes('.') ? ['0', '0'] : [g]))
  const groups = tail === undefined ? headGroups : [...headGroups, ...Array<string>(Math.max(0, 8 - headGroups.length - tailGroups.length)).fill('0'), ...tailGroups]
  return `${groups.slice(0, 4).map((g) => parseInt(g || '0', 16).toString(16)).join(':')}::/64`
}

/** An address as a proxy writes it in X-Forwarded-For: `1.2.3.4`, `1.2.3.4:5678`, `2001:db8::1`, `[2001:db8::1]:443`; null otherwise. */
function hopAddress(text: string): string | null {
  if (text.length === 0 || text.length > MAX_HOP_LENGTH) return null
  if (text.charCodeAt(0) === 91 /* [ */) {
    const end = text.indexOf(']')
    const inside = text.slice(1, end)
    const rest = text.slice(end + 1)
    if (end < 0 || isIP(inside) !== 6 || (rest !== '' && !(rest.startsWith(':') && isPort(rest.slice(1))))) return null
    return normalizeAddress(inside)
  }
  if (isIP(text) !== 0) return normalizeAddress(text)
  const colon = text.lastIndexOf(':')
  if (colon > 0 && text.indexOf(':') === colon && isPort(text.slice(colon + 1)) && isIP(text.slice(0, colon)) === 4) return text.slice(0, colon)
  return null
}

const isPort = (text: string) => /^\d{1,5}$/.test(text) && Number(text) <= 65535

/** X-Forwarded-For's addresses, right-most first (null for an entry that is not one). */
function* forwardedForHops(value: string): Generator<string | null> {
  let end = value.length
  while (end > 0) {
    const comma = value.lastIndexOf(',', end - 1)
    yield hopAddress(value.slice(comma + 1, end).trim())
    end = comma < 0 ? 0 : comma
  }
}

/**
 * Forwarded's (RFC 7239) `for=` addresses, right-most element first (null for an element
 * without a usable one: `unknown`, an obfuscated `_name`, garbage). Commas inside quoted
 * strings do not split elements.
 */
function* forwardedHops(value: string): Generator<string | null> {
  let end = value.length
  while (end > 0) {
    let i = end - 1
    let quoted = false
    for (; i >= 0; i--) {
      const ch = value.charCodeAt(i)
      if (ch === 34 /* " */) quoted = !quoted
      else if (ch === 44 /* , */ && !quoted) break
    }
    yield forAddress(value.slice(i + 1, end))
    end = i < 0 ? 0 : i
  }
}

function forAddress(element: string): string | null {
  if (element.length > 4 * MAX_HOP_LENGTH) return null
  for (const pair of element.split(';')) {
    const eq = pair.indexOf('=')
    if (eq < 0 || pair.slice(0, eq).trim().toLowerCase() !== 'for') continue
    let v = pair.slice(eq + 1).trim()
    if (v.length >= 2 && v.startsWith('"') && v.endsWith('"')) v = v.slice(1, -1)
    return hopAddress(v)
  }
  return null
}
