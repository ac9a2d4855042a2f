/**
 * API keys (X-API-Key): their format, their hash, and the live keys of this process,
 * reloaded whenever one is created or revoked anywhere (storage/api-keys.ts `watchKeys`).
 * A request's key is looked up in memory: the hot path never reaches the database.
 */
import { createHash, randomBytes } from 'node:crypto'
import type { LiveApiKey } from '../storage/api-keys.ts'

export const API_KEY_PREFIX = 'gws_'
/** `gws_` and 32 random bytes in base64url. */
const FORMAT = /^gws_[A-Za-z0-9_-]{43}$/
const LENGTH = API_KEY_PREFIX.length + 43
/** Characters of a key kept in the list to tell keys apart (its prefix and 8 of 43 random characters). */
export const SHOWN_PREFIX_LENGTH = API_KEY_PREFIX.length + 8

export const newApiKey = () => API_KEY_PREFIX + randomBytes(32).toString('base64url')

export const hashApiKey = (key: string) => createHash('sha256').update(key).digest('hex')

export class ApiKeyTable {
  private byHash = new Map<string, LiveApiKey>()
  /** Whether the keys were read once: until then a request's key cannot be told from a wrong one. */
  loaded = false

  replace(keys: readonly LiveApiKey[]): void {
    this.byHash = new Map(keys.map((k) => [k.keySha256, k]))
    this.loaded = true
  }

  /** The live key presented (an X-API-Key value), if there is one; a value of another shape is hashed by no one. */
  find(presented: string): LiveApiKey | undefined {
    if (presented.length !== LENGTH || !FORMAT.test(presented)) return undefined
    return this.byHash.get(hashApiKey(presented))
  }

  get size(): number {
    return this.byHash.size
  }
}
