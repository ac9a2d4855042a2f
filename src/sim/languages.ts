/**
 * The languages of the simulated upstream: the nine the community API syncs
 * (shared/spec/upstream-feeds.md, Accept-Language). The simulated war writes its texts in
 * English; another language gets the same text marked with its tag (`[de-DE] ...`):
 * deterministic, and a test can tell every language's text from the others.
 */
export const SIM_LANGUAGES = ['en-US', 'de-DE', 'es-ES', 'ru-RU', 'fr-FR', 'it-IT', 'pl-PL', 'zh-Hans', 'zh-Hant'] as const
export const SIM_PRIMARY = 'en-US'

/**
 * The language an Accept-Language header selects: its first tag, matched without regard
 * to case, else by its primary subtag (`de` → de-DE), else en-US (the community API's
 * fallback). Undefined without a header: the real newsfeed then leaves `message` out.
 */
export function languageOf(header: string | null): string | undefined {
  const first = (header ?? '').split(',')[0]!.split(';')[0]!.trim().toLowerCase()
  if (first === '') return undefined
  const prefix = first.split('-')[0]
  return (
    SIM_LANGUAGES.find((l) => l.toLowerCase() === first) ??
    SIM_LANGUAGES.find((l) => l.split('-')[0]!.toLowerCase() === prefix) ??
    SIM_PRIMARY
  )
}

/** A text of the simulated war in `language` (an empty text stays empty). */
export const localize = (text: string, language: string = SIM_PRIMARY): string =>
  language === SIM_PRIMARY || text === '' ? text : `[${language}] ${text}`
