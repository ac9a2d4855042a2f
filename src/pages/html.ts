/**
 * The HTML shell of each page: header, navigation, a <main> the page's script fills, and a
 * <noscript> note. Everything else (figures, charts, tables) is drawn by the browser code
 * from the public /api/v1 routes.
 */
import type { Bundle } from './bundle.ts'

export type PageName = 'main' | 'war' | 'planet' | 'dispatches'

const TITLES: Record<PageName, string> = {
  main: 'Divers',
  war: 'War',
  planet: 'Planet',
  dispatches: 'Dispatches',
}

const NAV: [PageName, string, string][] = [
  ['main', '/', 'Divers'],
  ['war', '/war', 'War'],
  ['dispatches', '/dispatches', 'Dispatches'],
]

export function pageHtml(page: PageName, bundle: Bundle): string {
  const nav = NAV.map(([name, href, label]) => `<a href="${href}"${name === page ? ' aria-current="page"' : ''}>${label}</a>`).join('')
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${TITLES[page]} · galactic war stats</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/assets/${bundle.css.name}">
<script type="module" src="/assets/${bundle.js.name}"></script>
</head>
<body data-page="${page}">
<header class="top"><a class="brand" href="/">galactic war stats</a><nav>${nav}<a href="/openapi">API</a></nav></header>
<main id="app"><p class="empty">Loading…</p></main>
<noscript><p class="empty">These pages draw their figures with JavaScript from the public API under <a href="/openapi">/api/v1</a>.</p></noscript>
<footer class="foot">Figures from the public <a href="/openapi">/api/v1</a> routes of this service.</footer>
</body>
</html>
`
}

/** A plain page for when the browser code could not be built (the log says why). */
export const unavailableHtml = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Pages unavailable</title></head>
<body><p>The pages of this service are unavailable: their browser code could not be built (see the service log). The JSON API under /api/v1 works.</p></body></html>
`

/** The page icon: a small shield, inline SVG served from here (no image request elsewhere). */
export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><path d="M8 1l6 2v5c0 3.5-2.6 6-6 7-3.4-1-6-3.5-6-7V3z" fill="#f5c518" stroke="#222" stroke-width="1"/></svg>`
