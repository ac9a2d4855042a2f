/** The real captured feed payloads the project ships (assets/upstream-samples; origins in its README). */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

export const SAMPLES = join(import.meta.dir, '../../assets/upstream-samples')

/** One sample file, parsed. */
export const loadSample = (path: string): unknown => JSON.parse(readFileSync(join(SAMPLES, path), 'utf8'))

/** The files of a sample folder whose names start with `prefix`, sorted. */
export const sampleFiles = (folder: string, prefix: string) => readdirSync(join(SAMPLES, folder)).filter((f) => f.startsWith(prefix)).sort()
