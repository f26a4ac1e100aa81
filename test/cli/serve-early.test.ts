import { describe, expect, it } from "@effect/vitest"
import * as os from "node:os"
import { SERVE_NODE_FLAGS, workerExecArgv } from "../../src/cli/node-flags.js"
import { earlyWorkerCount } from "../../src/cli/serve-early.js"

describe("the command lines on which serve forks its first worker before loading its modules", () => {
  it("serve with more than one worker, by default one per core; nothing else", () => {
    const cores = os.availableParallelism()
    expect(earlyWorkerCount(["serve"])).toBe(cores > 1 ? cores : undefined)
    expect(earlyWorkerCount(["serve", "--workers", "3"])).toBe(3)
    expect(earlyWorkerCount(["serve", "--json", "--workers=4"])).toBe(4)
    // One worker serves in the primary; anything else is left to the command line (which may refuse it).
    for (
      const args of [
        ["serve", "--workers", "1"],
        ["serve", "--workers", "0"],
        ["serve", "--workers", "257"],
        ["serve", "--workers", "2x"],
        ["serve", "--workers"],
        ["serve", "--help"],
        ["serve", "--workers", "2", "--port", "9"],
        ["migrate"],
        []
      ]
    ) expect(earlyWorkerCount(args), args.join(" ")).toBeUndefined()
  })
})

describe("the node flags of serve's workers", () => {
  it("are the primary's own and a 64 MiB young generation, unless the primary was given its own size", () => {
    expect(SERVE_NODE_FLAGS).toEqual(["--max-semi-space-size=64"])
    expect(workerExecArgv([])).toEqual(["--max-semi-space-size=64"])
    expect(workerExecArgv(["--enable-source-maps"])).toEqual(["--enable-source-maps", "--max-semi-space-size=64"])
    expect(workerExecArgv(["--max-semi-space-size=32"])).toEqual(["--max-semi-space-size=32"])
  })
})
