/**
 * The embedded PGlite is one PostgreSQL session, and `PGLiteSocketServer` (0.2.17, pinned) queues its
 * clients' protocol messages one at a time into it. It keeps a transaction's statements together (while the
 * session is in a transaction, only the connection that began it goes on), but not an extended-query cycle:
 * between one connection's Parse and its Bind, another connection's Parse may run and take the one unnamed
 * statement ("unnamed prepared statement does not exist", or the other's rows). One process talks to the
 * database over one connection (`EMBEDDED_CONNECTIONS`), but several processes share it: the operator's
 * commands while the server runs, and every worker of `serve --workers N`.
 *
 * `holdQueryCycles` replaces the server's queue step so that a connection that has begun a cycle (Parse,
 * Bind, Describe, Execute, Close, Flush) is the only one served until it ends the cycle (Sync, a simple
 * Query, Terminate) or goes away. It also keeps the queue going after a message fails (the original stops
 * there for good).
 */
import type { PGlite } from "@electric-sql/pglite"
import type { PGLiteSocketServer } from "@electric-sql/pglite-socket"

/** The parts of the server's private `QueryQueueManager` this replaces or reads. */
interface QueuedMessage {
  readonly handlerId: number
  readonly message: Uint8Array
  readonly resolve: (resultSize: number) => void
  readonly reject: (error: Error) => void
  readonly onData: (data: Uint8Array) => void
}

interface QueueInternals {
  queue: Array<QueuedMessage>
  processing: boolean
  readonly db: PGlite
  lastHandlerId: number | null
  processQueue(): Promise<void>
  clearQueueForHandler(handlerId: number): void
}

const code = (letter: string) => letter.charCodeAt(0)
/** Messages that begin or continue an extended-query cycle. */
const CONTINUES_CYCLE = new Set(["P", "B", "D", "E", "C", "H"].map(code))
/** Messages that end one (or are a cycle of their own). */
const ENDS_CYCLE = new Set(["S", "Q", "X"].map(code))

export const holdQueryCycles = (server: PGLiteSocketServer): void => {
  const queue = (server as unknown as { readonly queryQueue: QueueInternals }).queryQueue
  /** The connection in the middle of an extended-query cycle, if any. */
  let cycleOwner: number | null = null

  queue.processQueue = async function processQueue(this: QueueInternals) {
    if (this.processing || this.queue.length === 0) return
    this.processing = true
    try {
      while (this.queue.length > 0) {
        const owner = cycleOwner ?? (this.db.isInTransaction() ? this.lastHandlerId : null)
        const index = owner === null ? 0 : this.queue.findIndex((queued) => queued.handlerId === owner)
        // The owner's next message has not arrived yet: the others wait for it.
        if (index === -1) break
        const [next] = this.queue.splice(index, 1)
        const { handlerId, message, onData, reject, resolve } = next!
        let size = 0
        try {
          await this.db.runExclusive(() =>
            this.db.execProtocolRawStream(message, {
              onRawData: (data) => {
                size += data.length
                onData(data)
              }
            })
          )
        } catch (error) {
          if (cycleOwner === handlerId) cycleOwner = null
          reject(error as Error)
          continue
        }
        this.lastHandlerId = handlerId
        const type = message[0]!
        if (CONTINUES_CYCLE.has(type)) cycleOwner = handlerId
        else if (ENDS_CYCLE.has(type)) cycleOwner = null
        resolve(size)
      }
    } finally {
      this.processing = false
    }
  }

  const clearQueueForHandler = queue.clearQueueForHandler.bind(queue)
  queue.clearQueueForHandler = (handlerId: number) => {
    clearQueueForHandler(handlerId)
    // A connection gone in the middle of a cycle holds nobody up.
    if (cycleOwner === handlerId) {
      cycleOwner = null
      void queue.processQueue()
    }
  }
}
