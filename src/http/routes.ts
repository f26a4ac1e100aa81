/** The route table, read from the API definition: which methods a path answers (404 versus 405). */
import { Api, extraRoutes } from "./api.js"
import { frontPageRoutes } from "./front-page.js"
import { portalRoutes } from "./portal-routes.js"

interface RoutePattern {
  readonly method: string
  readonly pattern: RegExp
}

const toPattern = (path: string) =>
  new RegExp(
    "^" +
      path.split("/").map((part) => (part.startsWith(":") ? "[^/]+" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
        .join("/") +
      "/?$"
  )

const apiRoutes = Object.values(
  (Api as any).groups as Record<string, { endpoints: Record<string, { method: string; path: string }> }>
)
  .flatMap((group) => Object.values(group.endpoints))
  .map(({ method, path }) => ({ method, path }))

const routes: ReadonlyArray<RoutePattern> = [
  ...apiRoutes,
  ...extraRoutes,
  ...frontPageRoutes,
  ...portalRoutes
].map(({ method, path }) => ({
  method,
  pattern: toPattern(path)
}))

/** The methods that answer a path; empty when no route matches it. */
export const methodsFor = (path: string): ReadonlyArray<string> => [
  ...new Set(routes.filter((route) => route.pattern.test(path)).map((route) => route.method))
]
