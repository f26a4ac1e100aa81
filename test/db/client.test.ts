import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer, Redacted } from "effect"
import * as net from "node:net"
import { describeTarget, pgClientLayer } from "../../src/db/client.js"

/** A port nothing listens on (bound, then closed). */
const closedPort = () =>
  new Promise<number>((resolve) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })

describe("the SQL client's start", () => {
  it("names the database it could not reach, without its password, and why", async () => {
    expect(describeTarget({ _tag: "Url", url: Redacted.make("postgres://u:secret@db.example:5433/prod") }))
      .toBe("postgres://u:***@db.example:5433/prod")
    expect(describeTarget({ _tag: "Host", host: "/tmp/socket", port: 5432, database: "postgres" }))
      .toBe("/tmp/socket:5432/postgres")
    const port = await closedPort()
    const exit = await Effect.runPromiseExit(
      Layer.build(pgClientLayer({ _tag: "Url", url: Redacted.make(`postgres://u:secret@127.0.0.1:${port}/x`) }))
        .pipe(Effect.scoped)
    )
    expect(Exit.isFailure(exit)).toBe(true)
    const text = JSON.stringify(exit)
    expect(text).toContain(`Failed to connect to postgres://u:***@127.0.0.1:${port}/x: connect ECONNREFUSED`)
    expect(text).not.toContain("secret")
  })
})
