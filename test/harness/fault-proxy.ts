/**
 * A TCP proxy in front of the test database that a test can cut or stall. Cut: live connections are
 * destroyed and new ones refused until it is restored. Stalled: connections stay open (new ones are
 * accepted) but nothing passes either way until it is restored, when what was held is delivered in order.
 * This makes the database fail for real, whichever server is behind it.
 */
import { Context, Effect, type Scope } from "effect"
import * as net from "node:net"

export interface DatabaseFaults {
  /** Makes the database unreachable: connections reset, new ones refused. */
  readonly cut: Effect.Effect<void>
  /** Makes the database silent: nothing passes, nothing fails. */
  readonly stall: Effect.Effect<void>
  readonly restore: Effect.Effect<void>
}

export class DatabaseFaultsTag extends Context.Tag("test/DatabaseFaults")<DatabaseFaultsTag, DatabaseFaults>() {}

export type ProxyTarget = { readonly path: string } | { readonly host: string; readonly port: number }

interface State {
  mode: "open" | "cut" | "stalled"
  /** Chunks held while stalled, each with the socket it was bound for, in arrival order. */
  held: Array<readonly [net.Socket, Buffer]>
}

export const faultProxy = (
  target: ProxyTarget
): Effect.Effect<{ readonly port: number; readonly faults: DatabaseFaults }, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.async<{ server: net.Server; sockets: Set<net.Socket>; state: State }>((resume) => {
      const sockets = new Set<net.Socket>()
      const state: State = { mode: "open", held: [] }
      const forward = (from: net.Socket, to: net.Socket) =>
        from.on("data", (chunk) => {
          if (state.mode === "stalled") state.held.push([to, chunk])
          else if (!to.destroyed) to.write(chunk)
        })
      const server = net.createServer((client) => {
        if (state.mode === "cut") {
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
        forward(client, upstream)
        forward(upstream, client)
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
          state.mode = "cut"
          state.held = []
          for (const socket of sockets) socket.destroy()
        }),
        stall: Effect.sync(() => {
          state.mode = "stalled"
        }),
        restore: Effect.sync(() => {
          state.mode = "open"
          const held = state.held
          state.held = []
          for (const [to, chunk] of held) if (!to.destroyed) to.write(chunk)
        })
      }
    }))
  )
