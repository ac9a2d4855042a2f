/**
 * api_keys: the keys of heavy users (X-API-Key), stored as their SHA-256. Every process
 * keeps the live keys in memory (http/api-keys.ts) and reloads them when a change is
 * announced: a key revoked by one process, or by `npm run keys`, is refused by every
 * process within the delivery of a notification, as a data version moves (changes.ts).
 */
import type { Queryable, Sql } from '../db/connect.ts'

/** A live key as the service needs it: no name, no dates. */
export interface LiveApiKey {
  id: number
  keySha256: string
  quota: number | null
  windowSeconds: number | null
}

/** A key as the CLI lists it. */
export interface ApiKeyRow {
  id: number
  name: string
  keyPrefix: string
  quota: number | null
  windowSeconds: number | null
  createdAt: Date
  revokedAt: Date | null
}

export const API_KEYS_CHANNEL = 'gws_api_keys_changed'

/** The keys not revoked. */
export function liveKeys(sql: Queryable): Promise<LiveApiKey[]> {
  return sql<LiveApiKey[]>`
    SELECT id, key_sha256 AS "keySha256", quota, window_seconds AS "windowSeconds"
    FROM api_keys WHERE revoked_at IS NULL ORDER BY id`
}

/** Every key, revoked ones included, oldest first. */
export function listKeys(sql: Queryable): Promise<ApiKeyRow[]> {
  return sql<ApiKeyRow[]>`
    SELECT id, name, key_prefix AS "keyPrefix", quota, window_seconds AS "windowSeconds", created_at AS "createdAt", revoked_at AS "revokedAt"
    FROM api_keys ORDER BY id`
}

/** Store a new key (its hash) and announce it; its id. */
export async function createKey(sql: Sql, key: { name: string; keySha256: string; keyPrefix: string; quota: number | null; windowSeconds: number | null }): Promise<number> {
  return sql.begin(async (tx) => {
    const [row] = await tx<{ id: number }[]>`
      INSERT INTO api_keys (name, key_sha256, key_prefix, quota, window_seconds)
      VALUES (${key.name}, ${key.keySha256}, ${key.keyPrefix}, ${key.quota}, ${key.windowSeconds})
      RETURNING id`
    await announceKeys(tx)
    return row!.id
  })
}

/** Revoke a live key and announce it; false when no live key has this id. */
export async function revokeKey(sql: Sql, id: number): Promise<boolean> {
  return sql.begin(async (tx) => {
    const done = await tx`UPDATE api_keys SET revoked_at = now() WHERE id = ${id} AND revoked_at IS NULL RETURNING id`
    if (done.length) await announceKeys(tx)
    return done.length > 0
  })
}

/** Inside the transaction that changed the keys: every process reloads them (delivered at commit). */
async function announceKeys(tx: Queryable): Promise<void> {
  await tx`SELECT pg_notify(${API_KEYS_CHANNEL}, '')`
}

/**
 * The live keys now, and again whenever a change is announced or listening (re)starts (a
 * notification may have been missed meanwhile). Reloads never overlap: one announced while
 * a reload runs starts another once it is done. `listen: false` (the embedded database,
 * whose one process is the only writer) loads once. A failed load is reported and tried
 * again after `retryMs`.
 */
export async function watchKeys(
  sql: Sql,
  onKeys: (keys: LiveApiKey[]) => void,
  opts: { listen: boolean; onError: (err: unknown) => void; retryMs?: number },
): Promise<{ stop(): Promise<void> }> {
  let running = false
  let again = false
  let stopped = false
  let retry: ReturnType<typeof setTimeout> | undefined
  const reload = async (): Promise<void> => {
    if (running) {
      again = true
      return
    }
    running = true
    try {
      do {
        again = false
        try {
          onKeys(await liveKeys(sql))
        } catch (err) {
          opts.onError(err)
          if (!stopped && retry === undefined) {
            retry = setTimeout(() => ((retry = undefined), void reload()), opts.retryMs ?? 5000)
            retry.unref?.()
          }
        }
      } while (again && !stopped)
    } finally {
      running = false
    }
  }
  await reload()
  const listening = opts.listen ? await sql.listen(API_KEYS_CHANNEL, () => void reload(), () => void reload()) : null
  return {
    async stop() {
      stopped = true
      clearTimeout(retry)
      await listening?.unlisten()
    },
  }
}
