/**
 * Questions the workers of `serve --workers N` ask their primary process, and its answers, over the
 * cluster's IPC channel (structured clone: `serialization: "advanced"`, so typed arrays and maps go as
 * they are). A question names a topic; the primary answers each topic with one function of its own.
 */
import { Data, Effect } from "effect"
import type { Worker } from "node:cluster"
import cluster from "node:cluster"
import { questionsHeld } from "./held-questions.js"

const CHANNEL = "propscore"

interface Question {
  readonly channel: typeof CHANNEL
  readonly kind: "question"
  readonly id: number
  readonly topic: string
  readonly body: unknown
}

interface Answer {
  readonly channel: typeof CHANNEL
  readonly kind: "answer"
  readonly id: number
  readonly ok: boolean
  readonly body: unknown
}

const isMessage = <K extends "question" | "answer">(
  kind: K,
  message: unknown
): message is K extends "question" ? Question
  : Answer =>
  typeof message === "object" && message !== null && "channel" in message && message.channel === CHANNEL &&
  "kind" in message && message.kind === kind

/** The primary did not answer: it is gone (the worker stops too), or its answer was a failure. */
export class PrimaryDidNotAnswer extends Data.TaggedError("PrimaryDidNotAnswer")<{
  readonly topic: string
  readonly message: string
}> {}

/** Questions of this worker still waiting for their answer, by id. */
const waiting = new Map<number, (answer: Pick<Answer, "ok" | "body">) => void>()
let nextId = 0
let listening = false

const listen = () => {
  if (listening) return
  listening = true
  process.on("message", (message: unknown) => {
    if (!isMessage("answer", message)) return
    const resume = waiting.get(message.id)
    waiting.delete(message.id)
    resume?.(message)
  })
  process.on("disconnect", () => {
    for (const resume of waiting.values()) resume({ ok: false, body: "the primary process is gone" })
    waiting.clear()
  })
}

/** In a worker: asks the primary about `topic` and waits for its answer. */
export const askPrimary = <A>(topic: string, body: unknown = null): Effect.Effect<A, PrimaryDidNotAnswer> =>
  Effect.async<A, PrimaryDidNotAnswer>((resume) => {
    const fail = (message: string) => resume(Effect.fail(new PrimaryDidNotAnswer({ topic, message })))
    if (process.send === undefined || !process.connected) {
      fail("this process has no primary")
      return
    }
    listen()
    const id = nextId++
    waiting.set(id, (answer) => (answer.ok ? resume(Effect.succeed(answer.body as A)) : fail(String(answer.body))))
    const question: Question = { channel: CHANNEL, kind: "question", id, topic, body }
    process.send(question, undefined, undefined, (error) => {
      if (error === null) return
      waiting.delete(id)
      fail(error.message)
    })
    return Effect.sync(() => waiting.delete(id))
  })

/** How the primary answers one topic: the answer's body, or a failure (sent back as its message). */
export type Answerer = (body: unknown, worker: Worker) => Promise<unknown>

/** The primary's answerers, by topic. */
const answerers = new Map<string, Answerer>()

const reply = (worker: Worker, answer: Omit<Answer, "channel" | "kind">) => {
  // A worker gone meanwhile gets no answer: nothing waits for it any more.
  if (worker.isConnected()) worker.send({ channel: CHANNEL, kind: "answer", ...answer }, undefined, () => {})
}

/** In the primary: answers one message of `worker` if it is a question (one held before is passed here). */
export const answerQuestion = (worker: Worker, message: unknown) => {
  if (!isMessage("question", message)) return
  const answerer = answerers.get(message.topic)
  const answered = answerer === undefined
    ? Promise.reject(new Error(`the primary answers nothing about ${message.topic}`))
    : Promise.resolve().then(() => answerer(message.body, worker))
  answered.then(
    (body) => reply(worker, { id: message.id, ok: true, body }),
    (error: unknown) =>
      reply(worker, { id: message.id, ok: false, body: error instanceof Error ? error.message : String(error) })
  )
}

const onQuestion = (worker: Worker, message: unknown) => {
  if (!questionsHeld(worker)) answerQuestion(worker, message)
}

/** In the primary: answers its workers' questions on these topics, until the returned function is called. */
export const answerWorkers = (topics: Readonly<Record<string, Answerer>>): () => void => {
  if (answerers.size === 0) cluster.on("message", onQuestion)
  for (const [topic, answerer] of Object.entries(topics)) answerers.set(topic, answerer)
  return () => {
    for (const topic of Object.keys(topics)) answerers.delete(topic)
    if (answerers.size === 0) cluster.off("message", onQuestion)
  }
}
