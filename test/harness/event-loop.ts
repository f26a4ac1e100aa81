/**
 * Vitest's worker waits at most 60 s (fixed, vitest-dev/vitest#8164) for its runner's reply to each task
 * update, and the reply is read only when the worker's thread reaches its event loop again. A test that fits a
 * model in place holds the thread; one that held it past 60 s fails the run ("Timeout calling onTaskUpdate")
 * though every test passed. So a test never fits for long in one piece: a large fit goes to a worker thread,
 * and a test with two fits lets the loop turn between them (`turnEventLoop`). After each test it turns too
 * (`setup.ts`), so that tests in a row never add up.
 */

/** One turn of the event loop (I/O included): the runner's replies waiting are read. */
export const turnEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))
