/** Run before each test file: the event loop turns after each test (see `event-loop.ts`). */
import { afterEach } from "vitest"
import { turnEventLoop } from "./event-loop.js"

afterEach(turnEventLoop)
