import { describe, expect, it } from "@effect/vitest"
import * as os from "node:os"
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
