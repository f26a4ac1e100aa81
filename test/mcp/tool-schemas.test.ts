/**
 * What a host and its model are given (issue: tools every major host can use): the tool list held to the
 * constraints hosts put on it. Plain object input schemas with inline, described members (no top-level
 * combinator, no `$ref`, no description Effect generated from a filter), annotations, an output schema each
 * answer conforms to, descriptions that say the cost and how to recover, and `instructions`. Both official
 * SDK clients, over the real server with the scripted scoring fake.
 */
import { expect, layer } from "@effect/vitest"
import { Ajv2020 } from "ajv/dist/2020.js"
import { Effect } from "effect"
import { isGeneratedText, undescribedMembers } from "../../schema/json-schema.js"
import { CAUTION_CODES } from "../../schema/scored-answer.js"
import { type ScriptEntry, sqlServicesWithFakeScoring } from "../harness/fake-scoring.js"
import { elmStreetHistory, outcome } from "../harness/fixtures.js"
import { connect } from "../harness/mcp-client.js"
import { newAccount, serverWith } from "../harness/server.js"

const script: Record<string, ScriptEntry> = { "42 Elm St": { answer: { _tag: "Outcome", outcome } } }
const services = sqlServicesWithFakeScoring(script, { "42 Elm St": elmStreetHistory })

/** Every JSON Pointer in `node` where `test` holds of a key and its value. */
const findAll = (node: unknown, test: (key: string, value: unknown) => boolean, at = ""): Array<string> => {
  if (Array.isArray(node)) return node.flatMap((item, i) => findAll(item, test, `${at}/${i}`))
  if (typeof node !== "object" || node === null) return []
  return Object.entries(node).flatMap(([key, value]) => [
    ...(test(key, value) ? [`${at}/${key}`] : []),
    ...(key === "examples" ? [] : findAll(value, test, `${at}/${key}`))
  ])
}

/** The host constraints a tool schema must meet; each finding names where it fails. */
const hostFindings = (schema: any): Array<string> => [
  ...(schema?.type === "object" ? [] : ["type is not object"]),
  ...(typeof schema?.properties === "object" ? [] : ["no root properties"]),
  ...["anyOf", "oneOf", "allOf", "not", "if"].filter((keyword) => keyword in (schema ?? {})).map((k) =>
    `top-level ${k}`
  ),
  ...findAll(schema, (key) => key === "$ref" || key === "$defs" || key === "definitions").map((at) => `ref ${at}`),
  ...findAll(
    schema,
    (key, value) => (key === "description" || key === "title") && typeof value === "string" && isGeneratedText(value)
  ).map((at) => `generated text ${at}`),
  ...undescribedMembers(schema).map((at) => `undescribed ${at}`)
]

const ajv = new Ajv2020({ strict: false, allErrors: true })
const conforms = (schema: object, value: unknown) => {
  const check = ajv.compile(schema)
  return check(value) ? [] : (check.errors ?? []).map((e) => `${e.instancePath} ${e.message}`)
}

for (const generation of ["2026-07-28", "2025"] as const) {
  layer(serverWith(services), { timeout: "120 seconds", excludeTestServices: true })(
    `MCP tool list for hosts, ${generation} client`,
    (it) => {
      it.effect("MCP-1: four tools whose input schemas are plain objects, inline and described in written words", () =>
        Effect.gen(function*() {
          const { apiKey } = yield* newAccount()
          const client = yield* connect(generation, apiKey)
          const { tools } = yield* Effect.promise(() => client.listTools())
          expect(tools.map((tool) => tool.name).sort()).toEqual([
            "property_history",
            "score_property",
            "score_property_batch",
            "validate_request"
          ])
          for (const tool of tools) {
            expect({ tool: tool.name, findings: hostFindings(tool.inputSchema) }).toEqual({
              tool: tool.name,
              findings: []
            })
            expect({ tool: tool.name, findings: hostFindings(tool.outputSchema) }).toEqual({
              tool: tool.name,
              findings: []
            })
            // Its own example is accepted by its own input schema.
            for (const example of tool.inputSchema.examples ?? []) {
              expect(conforms(tool.inputSchema, example)).toEqual([])
            }
          }
          const validate = tools.find((tool) => tool.name === "validate_request")!
          expect(Object.keys(validate.inputSchema.properties)).toEqual(
            expect.arrayContaining(["address", "condition", "overrides", "properties"])
          )
          expect(validate.inputSchema.required ?? []).toEqual([])
          const history = tools.find((tool) => tool.name === "property_history")!
          expect(Object.keys(history.inputSchema.properties).sort()).toEqual([
            "address",
            "idempotency_key",
            "property_id"
          ])
          yield* Effect.promise(() => client.close())
        }))

      it.effect("MCP-1: the checks catch what hosts refuse (a top-level anyOf, a $ref, a generated description)", () =>
        Effect.sync(() => {
          expect(hostFindings({ anyOf: [{ type: "object" }] })).toEqual(
            expect.arrayContaining(["type is not object", "no root properties", "top-level anyOf"])
          )
          expect(hostFindings({
            type: "object",
            properties: {
              a: { $ref: "#/$defs/A", description: "A member" },
              b: { type: "number", description: "a number less than 0.9" },
              c: { type: "string" }
            }
          })).toEqual([
            "ref /properties/a/$ref",
            "generated text /properties/b/description",
            "undescribed /properties/b",
            "undescribed /properties/c"
          ])
        }))

      it.effect("MCP-2: annotations say which tools are read-only, none destructive, and idempotent only with a key; each description says how to act on every refusal the tool can give", () =>
        Effect.gen(function*() {
          const { apiKey } = yield* newAccount()
          const client = yield* connect(generation, apiKey)
          const { tools } = yield* Effect.promise(() => client.listTools())
          const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]))
          expect(byName["validate_request"]!.annotations).toMatchObject({
            readOnlyHint: true,
            destructiveHint: false,
            idempotentHint: true,
            openWorldHint: false
          })
          for (const name of ["score_property", "score_property_batch", "property_history"]) {
            const tool = byName[name]!
            expect(tool.annotations).toMatchObject({
              readOnlyHint: false,
              destructiveHint: false,
              idempotentHint: false,
              openWorldHint: false
            })
            // Written for a model: what it costs, how a retry is made safe, how errors come back; no REST route.
            expect(tool.description).toMatch(/Credit/)
            expect(tool.description).toMatch(/idempotency_key/)
            expect(tool.description).toMatch(/isError/)
            expect(tool.description).not.toMatch(/POST|\/v1\//)
            // The key's two refusals an agent meets (an agent's audit hit a conflict the list did not name).
            expect(tool.description).toMatch(/idempotency-key-conflict/)
            expect(tool.description).toMatch(/duplicate-request-in-flight/)
            expect(tool.title).toBeTruthy()
          }
          // The offer is a ceiling, not a price to offer; a batch too large is refused whole.
          expect(byName["score_property"]!.description).toMatch(/ceiling for their own offer/)
          expect(byName["score_property_batch"]!.description).toMatch(/batch-too-large/)
          expect(byName["score_property"]!.description).toMatch(/ambiguous-address.*candidates/)
          expect(byName["validate_request"]!.description).toMatch(/free|without .*spending/i)
          // Each refusal a tool can give has its way on in the tool's own "If it fails" list (the instructions
          // promise it; history's list left out the Credits' and scoring's refusals, validate's the batch's and
          // the rate limit's: an assistant developer's audit, 2026-11-30).
          const ifItFails = (name: string) => byName[name]!.description!.split("If it fails:")[1]!
          const paidRefusals = [
            "invalid-request",
            "insufficient-credits",
            "spend-cap-exceeded",
            "rate-limited",
            "terms-not-accepted",
            "upstream-unavailable",
            "upstream-timeout",
            "ledger-unreachable",
            "call-not-started"
          ]
          const expected: Record<string, ReadonlyArray<string>> = {
            score_property: [...paidRefusals, "ambiguous-address", "unscorable-address", "outside-coverage"],
            score_property_batch: [...paidRefusals, "ambiguous-address", "batch-too-large"],
            property_history: [...paidRefusals, "ambiguous-address", "unknown-property", "outside-coverage"],
            validate_request: ["invalid-request", "batch-too-large", "rate-limited", "call-not-started"]
          }
          for (const [name, slugs] of Object.entries(expected)) {
            for (const slug of slugs) expect(ifItFails(name), `${name}: ${slug}`).toContain(`\`${slug}\``)
          }
          yield* Effect.promise(() => client.close())
        }))

      it.effect("MCP-2: initialize carries instructions, and the tool and resource lists are declared as never changing", () =>
        Effect.gen(function*() {
          const { apiKey } = yield* newAccount()
          const client = yield* connect(generation, apiKey)
          expect(client.getInstructions()).toMatch(/idempotency_key/)
          expect(client.getInstructions()).toMatch(/validate_request` is free/)
          // Every caution code is named (a prose list had fallen seven codes behind: an agent's audit, 2026-11-29).
          for (const code of CAUTION_CODES) {
            expect({ code, named: client.getInstructions()?.includes(code) }).toEqual({ code, named: true })
          }
          // The covered markets and how recent their records are, before a paid call (an agent's audit).
          expect(client.getInstructions()).toContain(
            "Covered markets (a property elsewhere is refused, free): Demo County (synthetic) (ZZ), records through 2026-10-30."
          )
          expect(client.getServerCapabilities()?.tools?.listChanged).toBe(false)
          // Nor the resources (it said true, and no list_changed notification is ever sent).
          expect(client.getServerCapabilities()?.resources?.listChanged).toBe(false)
          yield* Effect.promise(() => client.close())
        }))

      it.effect("MCP-2: every answer conforms to its tool's output schema, caution codes added later too; a refusal is a tool error instead", () =>
        Effect.gen(function*() {
          const { apiKey } = yield* newAccount({ credits: 10 })
          const client = yield* connect(generation, apiKey)
          const { tools } = yield* Effect.promise(() => client.listTools())
          const outputOf = (name: string) => tools.find((tool) => tool.name === name)!.outputSchema
          const calls: Array<[string, Record<string, unknown>]> = [
            ["score_property", { address: "42 Elm St" }],
            ["score_property_batch", { properties: [{ address: "42 Elm St" }, { address: "42 Elm St" }] }],
            ["property_history", { address: "42 Elm St" }],
            ["validate_request", { address: "42 Elm St", condition: "light_rehab" }],
            ["validate_request", { properties: [{ address: "42 Elm St" }] }]
          ]
          for (const [name, args] of calls) {
            const result = yield* Effect.promise(() => client.callTool({ name, arguments: args }))
            expect({ name, isError: result.isError ?? false }).toEqual({ name, isError: false })
            expect({ name, violations: conforms(outputOf(name), result.structuredContent) }).toEqual({
              name,
              violations: []
            })
          }
          // A caution code is an open string: an answer with a code added after the client read the schema
          // still conforms (an enum of today's codes would have it rejected), and every code of today matches.
          const score = outputOf("score_property")!
          const scored = (yield* Effect.promise(() =>
            client.callTool({ name: "score_property", arguments: { address: "42 Elm St" } })
          )).structuredContent as Record<string, unknown>
          for (const code of [...CAUTION_CODES, "a-code-added-later"]) {
            const answer = { ...scored, cautions: [{ code, detail: "What it means." }] }
            expect({ code, violations: conforms(score, answer) }).toEqual({ code, violations: [] })
          }
          expect(findAll(score, (key, value) =>
            key === "enum" && JSON.stringify(value).includes("no-comp-band")))
            .toEqual([])
          expect(conforms(score, { ...scored, cautions: [{ code: "Not A Code", detail: "x" }] })).not.toEqual([])
          // Both shapes at once, or neither: the operation refuses, as REST's validate does.
          for (const args of [{ address: "42 Elm St", properties: [{ address: "42 Elm St" }] }, {}]) {
            const refused = yield* Effect.promise(() => client.callTool({ name: "validate_request", arguments: args }))
            expect(refused.isError).toBe(true)
            // The Problem Detail is the text; no structured content a client would hold to the output schema.
            expect(refused.structuredContent).toBeUndefined()
            expect(JSON.parse(refused.content[0]!.text!)).toMatchObject({ status: 400, type: expect.any(String) })
          }
          yield* Effect.promise(() => client.close())
        }))
    }
  )
}
