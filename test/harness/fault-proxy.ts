/**
 * A TCP proxy in front of the test database that a test can cut: live connections are destroyed and new
 * ones refused until it is restored. This makes the database fail for real, whichever server is behind it.
 */
import { Context, Effect, type Scope } from "effect"
import * as net from "node:net"

export interface DatabaseFaults {
  /** Makes the database unreachable. */
  readonly cut: Effect.Effect<void>
  readonly restore: Effect.Effect<void>
}

export class DatabaseFaultsTag extends Context.Tag("test/DatabaseFaults")<DatabaseFaultsTag, DatabaseFaults>() {}

export type ProxyTarget = { readonly path: string } | { readonly host: string; readonly port: number }

export const faultProxy = (
  target: ProxyTarget
): Effect.Effect<{ readonly port: number; readonly faults: DatabaseFaults }, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.async<{ server: net.Server; sockets: Set<net.Socket>; state: { cut: boolean } }>((resume) => {
      const sockets = new Set<net.Socket>()
      const state = { cut: false }
      const server = net.createServer((client) => {
        if (state.cut) {
          client.destroy()
          return
        }
        const upstream = "path" in target ? net.connect(target.path) : net.connect(target.port, target.host)
        sockets.add(client).add(upstream)
        const close = () => {
          client.destroy()
          upstream.destroy()
          sockets.delete(client)
          sockets.delete(upstream)
        }
        client.on("error", close).on("close", close)
        upstream.on("error", close).on("close", close)
        client.pipe(upstream).pipe(client)
      })
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed({ server, sockets, state })))
    }),
    ({ server, sockets }) =>
      Effect.async<void>((resume) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resume(Effect.void))
      })
  ).pipe(
    Effect.map(({ server, sockets, state }) => ({
      port: (server.address() as net.AddressInfo).port,
      faults: {
        cut: Effect.sync(() => {
          state.cut = true
          for (const socket of sockets) socket.destroy()
        }),
        restore: Effect.sync(() => {
          state.cut = false
        })
      }
    }))
  )
