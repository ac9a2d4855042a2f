/** Entry of the pages' bundle: the server marks each page with `data-page` on <body>. */
import { dispatchesPage } from './dispatches-page.ts'
import { mainPage } from './main-page.ts'
import { planetPage } from './planet-page.ts'
import { warPage } from './war-page.ts'

const PAGES: Record<string, (app: HTMLElement) => void> = { main: mainPage, war: warPage, planet: planetPage, dispatches: dispatchesPage }

const app = document.getElementById('app')
const page = PAGES[document.body.dataset.page ?? '']
if (app && page) page(app)
