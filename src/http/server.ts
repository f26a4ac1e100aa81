/**
 * The HTTP server: the API, its OpenAPI document and reference, the error pages, the front page and
 * health, the sign-in routes and the Portal, behind the front door.
 */
import { HttpApiBuilder, HttpApiScalar, HttpMiddleware, HttpServer } from "@effect/platform"
import { Layer } from "effect"
import { docsCss } from "./docs-style.js"
import { ErrorDocsRoutes } from "./error-docs.js"
import { frontDoor } from "./front-door.js"
import { FrontPageRoutes } from "./front-page.js"
import { ApiLive } from "./handlers.js"
import { McpRoutes } from "./mcp-route.js"
import { nodeServer } from "./node-server.js"
import { OAuthRoutes } from "./oauth-routes.js"
import { PortalRoutes } from "./portal-routes.js"

/**
 * The reference's settings. `showToolbar` and `authentication` are settings of the bundled Scalar that
 * `ScalarConfig` does not name yet: "never" hides Scalar's own developer toolbar, which it otherwise shows on
 * localhost; the API key scheme is preselected, so "Test Request" asks for the key (the demo account's is
 * printed by the first `npm start`) and sends the example body as it is.
 */
const scalarConfig = {
  layout: "modern",
  defaultOpenAllTags: true,
  showToolbar: "never",
  authentication: { preferredSecurityScheme: "apiKey" },
  customCss: docsCss
} as HttpApiScalar.ScalarConfig

/** The whole HTTP application; needs an `HttpServer`, `AppConfig` and the services. */
export const HttpAppLive = HttpApiBuilder.serve().pipe(
  // Inside the router, so that it sees every failure before anything is sent.
  Layer.provide(HttpApiBuilder.middleware(frontDoor)),
  Layer.provide(HttpApiScalar.layer({ path: "/docs", scalar: scalarConfig })),
  Layer.provide(HttpApiBuilder.middlewareOpenApi({ path: "/openapi.json" })),
  Layer.provide(ErrorDocsRoutes),
  Layer.provide(FrontPageRoutes),
  Layer.provide(McpRoutes),
  Layer.provide(OAuthRoutes),
  Layer.provide(PortalRoutes),
  Layer.provide(ApiLive)
)

export { nodeServer }

/**
 * The served application. It makes no spans: nothing exports them, and even unrecorded (the tracer is off)
 * each one cost a request a stack trace, a span object and a copy of the request's services to carry it. So
 * the operations name no spans, and the platform's per-request server span (`HttpMiddleware.tracer`, which
 * also parsed the URL and copied the headers for its attributes) is turned off for every request.
 */
export const HttpServerLive = (port: number) =>
  HttpAppLive.pipe(
    HttpServer.withLogAddress,
    HttpMiddleware.withTracerDisabledWhen(() => true),
    Layer.provide(nodeServer(port)),
    Layer.provide(Layer.setTracerEnabled(false))
  )
