// The node flags of a serving process (no imports: src/cli/serve-early.ts loads it before the other modules).

/**
 * The V8 flags a serving process runs with: a young generation of up to 64 MiB per semi-space (V8's
 * default is 16). A request allocates about a megabyte, mostly Effect's fiber bookkeeping, and 64 of them
 * in flight kept surviving the small young generation's frequent scavenges into the old one; with the
 * larger one most of it dies young: in an A/B the server spent a quarter less CPU per keyed predict
 * (issue 17). The flag can only be given when node starts: the workers of `serve --workers N` get it
 * from their primary (`workerExecArgv`), and a process serving alone from how it is started: `npm start`
 * (package.json, which repeats the flag) and the test harness (test/harness/process.ts).
 */
export const SERVE_NODE_FLAGS: ReadonlyArray<string> = ["--max-semi-space-size=64"]

/** The workers' node flags: this process's own (`own`), and the serving flags it lacks. */
export const workerExecArgv = (own: ReadonlyArray<string> = process.execArgv): Array<string> => [
  ...own,
  ...SERVE_NODE_FLAGS.filter((flag) => !own.some((given) => given.split("=")[0] === flag.split("=")[0]))
]
