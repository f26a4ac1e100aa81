import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Schema } from "effect"
import fc from "fast-check"
import { BATCH_LIMIT, BatchAnswer } from "../../schema/batch.js"
import {
  decodeBatchRequest,
  decodeHistoryRequest,
  decodeIdempotencyKey,
  decodeScoredCall
} from "../../schema/decode.js"
import { acceptBatch, acceptScoredCall, acceptValidationBody } from "../../src/operations/accept.js"

const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runSync(Effect.either(effect))

const pointersOf = (result: Either.Either<unknown, object>) =>
  Either.isLeft(result) && "errors" in result.left
    ? (result.left.errors as ReadonlyArray<{ pointer: string }>).map((error) => error.pointer)
    : []

describe("Scored Call body", () => {
  it("REQ-1: property_id is not accepted in a Scored Call", () => {
    expect(pointersOf(run(decodeScoredCall({ address: "1 Main St", property_id: "p-1" })))).toEqual(["/property_id"])
    expect(pointersOf(run(decodeScoredCall({ property_id: "p-1" }))).sort()).toEqual(["/address", "/property_id"])
  })

  it("REQ-1: the address is required, a string of 1 to 200 characters once trimmed, with a letter or digit and no control characters but line breaks and tabs, read as commas", () => {
    expect(pointersOf(run(decodeScoredCall({})))).toEqual(["/address"])
    const addressLike = fc.string({ minLength: 1, maxLength: 200 }).filter((s) =>
      s.trim().length > 0 && /[\p{L}\p{N}]/u.test(s) && !/[\u0000-\u001f\u007f-\u009f]/.test(s)
    )
    fc.assert(
      fc.property(addressLike, (address) => {
        const decoded = run(decodeScoredCall({ address: ` ${address} ` }))
        expect(Either.getOrThrow(decoded).address).toBe(address.trim())
      })
    )
    for (const address of ["🏠🏠", "—", "12 Main St\u0000", "12 Main St\u0007", "\t\n", "!!!"]) {
      expect(pointersOf(run(decodeScoredCall({ address }))), address).toEqual(["/address"])
    }
    // Line breaks and tabs, as pasted from a letter or a spreadsheet row, separate the address's parts as commas do
    // (an address audit, 2026-11-30: every such paste was refused).
    for (
      const [address, read] of [
        ["12 Main St\nRiverton, ZZ 99103", "12 Main St, Riverton, ZZ 99103"],
        ["12 Main St,\r\nRiverton", "12 Main St, Riverton"],
        ["12 Main St\tRiverton\tZZ 99103\n", "12 Main St, Riverton, ZZ 99103"]
      ]
    ) {
      expect(Either.getOrThrow(run(decodeScoredCall({ address }))).address).toBe(read)
    }
    // The length is the length sent: 200 characters with a line break are not refused as 201.
    const long = `12 Main St\n${"R".repeat(189)}`
    expect(long).toHaveLength(200)
    expect(Either.getOrThrow(run(decodeScoredCall({ address: long }))).address).toBe(`12 Main St, ${"R".repeat(189)}`)
    fc.assert(
      fc.property(fc.string({ minLength: 201, maxLength: 400 }).filter((s) => s.trim().length > 200), (address) => {
        expect(pointersOf(run(decodeScoredCall({ address })))).toEqual(["/address"])
      })
    )
    expect(pointersOf(run(decodeScoredCall({ address: "   " })))).toEqual(["/address"])
  })

  it("REQ-2: condition is optional and takes the five named values only", () => {
    expect(Either.isRight(run(decodeScoredCall({ address: "1 Main St" })))).toBe(true)
    for (const condition of ["turn_key", "light_rehab", "moderate_rehab", "major_rehab", "tear_down"]) {
      expect(Either.isRight(run(decodeScoredCall({ address: "1 Main St", condition })))).toBe(true)
    }
    fc.assert(
      fc.property(
        fc.string().filter((s) =>
          !["turn_key", "light_rehab", "moderate_rehab", "major_rehab", "tear_down"].includes(s)
        ),
        (condition) => {
          expect(pointersOf(run(decodeScoredCall({ address: "1 Main St", condition })))).toEqual(["/condition"])
        }
      )
    )
  })

  it("REQ-3: tear_down passes the schema but the endpoint refuses it, even with a rehab_budget", () => {
    expect(Either.isRight(run(decodeScoredCall({ address: "1 Main St", condition: "tear_down" })))).toBe(true)
    fc.assert(
      fc.property(fc.option(fc.integer({ min: 0, max: 10_000_000 }), { nil: undefined }), (rehabBudget) => {
        const body = {
          address: "1 Main St",
          condition: "tear_down",
          ...(rehabBudget === undefined ? {} : { rehab_budget: rehabBudget })
        }
        expect(pointersOf(run(acceptScoredCall(body)))).toEqual(["/condition"])
        expect(pointersOf(run(acceptValidationBody(body)))).toEqual(["/condition"])
      })
    )
  })

  it("REQ-5: rehab_budget is a whole number of dollars from 0 to 10,000,000", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000 }), (budget) => {
        expect(Either.isRight(run(decodeScoredCall({ address: "a", rehab_budget: budget })))).toBe(true)
      })
    )
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer({ max: -1 }),
          fc.integer({ min: 10_000_001 }),
          fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Number.isInteger(n)),
          fc.string(),
          fc.constant(null)
        ),
        (budget) => {
          expect(pointersOf(run(decodeScoredCall({ address: "a", rehab_budget: budget })))).toEqual(["/rehab_budget"])
        }
      )
    )
  })

  it("REQ-6: target_margin is a number strictly between 0 and 0.9", () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 0.9, noNaN: true, minExcluded: true, maxExcluded: true }), (margin) => {
        expect(Either.isRight(run(decodeScoredCall({ address: "a", target_margin: margin })))).toBe(true)
      })
    )
    fc.assert(
      fc.property(
        fc.oneof(
          fc.double({ max: 0, noNaN: true }),
          fc.double({ min: 0.9, noNaN: true }),
          fc.string(),
          fc.constant(null)
        ),
        (margin) => {
          expect(pointersOf(run(decodeScoredCall({ address: "a", target_margin: margin })))).toEqual(["/target_margin"])
        }
      )
    )
  })

  it("VAL-4: any unknown top-level member is refused at its pointer", () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }).filter((key) =>
          !["address", "condition", "rehab_budget", "target_margin", "overrides", "__proto__", "constructor"].includes(
            key
          )
        ),
        fc.jsonValue(),
        (key, value) => {
          expect(pointersOf(run(decodeScoredCall({ address: "1 Main St", [key]: value })))).toContain(
            "/" + key.replace(/~/g, "~0").replace(/\//g, "~1")
          )
        }
      )
    )
  })
})

describe("batch envelope", () => {
  it("BAT-11: over the cap is batch-too-large with honest counts, whatever the entries hold", () => {
    fc.assert(
      fc.property(fc.integer({ min: BATCH_LIMIT + 1, max: 400 }), fc.jsonValue(), (submitted, entry) => {
        const result = run(decodeBatchRequest({ properties: Array.from({ length: submitted }, () => entry) }))
        expect(Either.isLeft(result) && result.left).toMatchObject({
          _tag: "BatchTooLarge",
          limit: BATCH_LIMIT,
          submitted
        })
      })
    )
  })

  it("BAT-11: up to the cap, valid entries are accepted", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: BATCH_LIMIT }), (count) => {
        const properties = Array.from({ length: count }, (_, i) => ({ address: `${i} Main St` }))
        expect(Either.getOrThrow(run(acceptBatch({ properties }))).properties).toHaveLength(count)
      })
    )
  })

  it("BAT-5: the envelope accepts only properties; duplicates are allowed", () => {
    expect(pointersOf(run(decodeBatchRequest({ properties: [{ address: "a" }], callback: "x" })))).toEqual([
      "/callback"
    ])
    expect(pointersOf(run(decodeBatchRequest({})))).toEqual(["/properties"])
    expect(pointersOf(run(decodeBatchRequest({ properties: [] })))).toEqual(["/properties"])
    const duplicates = run(decodeBatchRequest({ properties: [{ address: "1 Main St" }, { address: "1 Main St" }] }))
    expect(Either.getOrThrow(duplicates).properties).toHaveLength(2)
  })

  it("BAT-5: an invalid entry refuses the whole batch with pointers naming the entries", () => {
    const result = run(acceptBatch({
      properties: [{ address: "ok" }, { address: "ok", overrides: { latitude: 1 } }, {
        address: "ok",
        condition: "tear_down"
      }]
    }))
    // Every refused value in one answer: the tear-down is named beside the entry the schema refused.
    expect(pointersOf(result)).toEqual(["/properties/1/overrides/latitude", "/properties/2/condition"])
    expect(pointersOf(run(acceptBatch({ properties: [{ address: "ok" }, { address: "ok", condition: "tear_down" }] }))))
      .toEqual(["/properties/1/condition"])
  })

  it("REQ-3 VAL-6: a tear-down is named with the other refused values, single or in a batch (an MCP audit's two rounds)", () => {
    const entry = { address: "ok" }
    const batch = run(acceptBatch({ properties: [entry, { ...entry, condition: "tear_down" }, { addres: "ok" }] }))
    expect(pointersOf(batch)).toEqual(["/properties/1/condition", "/properties/2/addres", "/properties/2/address"])
    expect(Either.isLeft(batch) && batch.left.detail).toBe("3 problems were found in the request; see errors.")
    expect(
      pointersOf(
        run(acceptBatch({ properties: [{ ...entry, condition: "tear_down" }, { ...entry, rehab_budget: "5" }] }))
      )
    )
      .toEqual(["/properties/0/condition", "/properties/1/rehab_budget"])
    expect(pointersOf(run(acceptScoredCall({ address: "ok", condition: "tear_down", target_margin: 2 })))).toEqual([
      "/condition",
      "/target_margin"
    ])
    // validate answers exactly the same.
    expect(run(acceptValidationBody({ properties: [{ ...entry, condition: "tear_down" }, { addres: "ok" }] })))
      .toEqual(run(acceptBatch({ properties: [{ ...entry, condition: "tear_down" }, { addres: "ok" }] })))
  })

  it("VAL-6: validate refuses an address beside properties as the mix of two shapes it is", () => {
    const result = run(acceptValidationBody({ address: "ok", properties: [{ address: "ok" }] }))
    expect(pointersOf(result)).toEqual(["/address"])
    expect(Either.isLeft(result) && result.left.detail).toMatch(/not accepted beside `properties`.*not both/)
  })

  it("VAL-4: a value of the wrong kind is said in the caller's terms, never the schema's names", () => {
    const detailsOf = (result: Either.Either<unknown, object>) =>
      Either.isLeft(result) && "errors" in result.left
        ? (result.left.errors as ReadonlyArray<{ detail: string }>).map((error) => error.detail)
        : []
    expect(detailsOf(run(acceptBatch({ properties: ["3 Pine Ct, Riverton"] })))).toEqual([
      "must be a JSON object with an `address`"
    ])
    expect(detailsOf(run(acceptBatch({ properties: "3 Pine Ct" })))).toEqual([
      "must be an array of properties, each a JSON object with an `address`"
    ])
    expect(detailsOf(run(acceptScoredCall({ address: "ok", overrides: "none" })))).toEqual(["must be a JSON object"])
    expect(detailsOf(run(acceptScoredCall({ address: 5 })))).toEqual(["must be a string"])
    for (const detail of detailsOf(run(acceptBatch({ properties: ["x", { address: 1, overrides: [] }] })))) {
      expect(detail).not.toMatch(/ScoredCall|ReadonlyArray|Overrides|readonly/)
    }
  })
})

describe("history request", () => {
  it("HIS-1: exactly one of address or property_id; both or neither is refused", () => {
    expect(Either.isRight(run(decodeHistoryRequest({ address: "1 Main St" })))).toBe(true)
    expect(Either.isRight(run(decodeHistoryRequest({ property_id: "demo-00001" })))).toBe(true)
    const both = run(decodeHistoryRequest({ address: "1 Main St", property_id: "demo-00001" }))
    expect(Either.isLeft(both) && both.left.detail).toMatch(/not both/)
    // Neither is said as such (it read "not both", an agent audit).
    const neither = run(decodeHistoryRequest({}))
    expect(Either.isLeft(neither) && neither.left.detail).toMatch(/neither was sent/)
    expect(pointersOf(run(decodeHistoryRequest({ property_id: "x", condition: "turn_key" })))).toEqual(["/condition"])
  })
})

describe("Idempotency-Key header", () => {
  const printable = fc.string({ unit: "grapheme", minLength: 1, maxLength: 120 }).filter((key) =>
    key.length <= 255 && key.trim().length > 0 && !/[\u0000-\u001f\u007f-\u009f]/.test(key)
  )

  it("IDEM-10: a valid key is accepted and used exactly as sent, never trimmed", () => {
    fc.assert(
      fc.property(printable, fc.constantFrom("", " ", "  "), fc.constantFrom("", " "), (key, before, after) => {
        const sent = before + key + after
        expect(Either.getOrThrow(run(decodeIdempotencyKey(sent)))).toBe(sent)
      })
    )
    expect(Either.getOrThrow(run(decodeIdempotencyKey("k".repeat(255))))).toBe("k".repeat(255))
    // 255 characters whatever their UTF-16 length: an emoji is one (a review, 2026-11-30: it counted two).
    expect(Either.getOrThrow(run(decodeIdempotencyKey("🏠".repeat(255))))).toBe("🏠".repeat(255))
    expect(Either.isLeft(run(decodeIdempotencyKey("🏠".repeat(256))))).toBe(true)
    expect(Either.getOrThrow(run(decodeIdempotencyKey(undefined)))).toBeUndefined()
  })

  it("IDEM-10: over 255 characters is refused", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 256, maxLength: 600 }).filter((key) => key.trim().length > 0), (key) => {
        expect(Either.isLeft(run(decodeIdempotencyKey(key)))).toBe(true)
      })
    )
  })

  it("IDEM-10: any control character, tab, CR and LF included, is refused", () => {
    const control = fc.oneof(
      fc.integer({ min: 0, max: 0x1f }),
      fc.integer({ min: 0x7f, max: 0x9f })
    ).map((code) => String.fromCharCode(code))
    fc.assert(
      fc.property(printable, control, fc.nat(), (key, char, at) => {
        const i = at % (key.length + 1)
        const result = run(decodeIdempotencyKey(key.slice(0, i) + char + key.slice(i)))
        expect(Either.isLeft(result)).toBe(true)
        if (Either.isLeft(result)) {
          expect(result.left.errors[0]).toMatchObject({ header: "Idempotency-Key" })
        }
      })
    )
    for (const char of ["\t", "\r", "\n"]) expect(Either.isLeft(run(decodeIdempotencyKey(`a${char}b`)))).toBe(true)
  })

  it("IDEM-10: blank or white-space-only is refused", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(" ", "\u00a0", "\u2003", "\u3000"), maxLength: 40 }), (key) => {
        expect(Either.isLeft(run(decodeIdempotencyKey(key)))).toBe(true)
      })
    )
  })
})

describe("Batch answer schema", () => {
  it("BAT-3: a failed entry is the single call's Problem Detail, missing-valuation-fact's subject_property included (an audit: the OpenAPI entry refused it)", () => {
    const entry = {
      type: "http://localhost:8080/docs/errors/missing-valuation-fact",
      title: "A fact the valuation needs is missing",
      status: 422,
      detail: "The valuation needs living_area_square_feet, which the property's record lacks.",
      missing: ["living_area_square_feet"],
      subject_property: {
        property_id: "mel-00001",
        address: "81 CARTER ST, MIDDLE PARK, VIC 3206",
        facts: { property_type: { value: "single_family", origin: "county-record" } },
        match: { method: "exact", address_sent: "81 Carter St", recorded_address: "81 CARTER ST", notes: [] }
      }
    }
    const decoded = Schema.decodeUnknownEither(BatchAnswer, { onExcessProperty: "error" })({ results: [entry] })
    expect(Either.isRight(decoded)).toBe(true)
  })
})

describe("overrides' unknown keys, single and in a batch", () => {
  it("OVR-3: an unknown override key is named with the overridable facts, in a batch entry as in a single call (an audit: the batch said only 'is not an accepted member')", () => {
    const detailsOf = (result: Either.Either<unknown, object>) =>
      Either.isLeft(result) && "errors" in result.left
        ? (result.left.errors as ReadonlyArray<{ pointer: string; detail: string }>)
        : []
    const single = detailsOf(run(decodeScoredCall({ address: "1 Main St", overrides: { bedroom: 2 } })))
    const batch = detailsOf(
      run(decodeBatchRequest({ properties: [{ address: "1 Main St", overrides: { bedroom: 2 } }] }))
    )
    expect(single.map((error) => error.pointer)).toEqual(["/overrides/bedroom"])
    expect(batch.map((error) => error.pointer)).toEqual(["/properties/0/overrides/bedroom"])
    expect(single[0]!.detail).toMatch(/is not an overridable fact; the overridable facts are /)
    expect(batch[0]!.detail).toBe(single[0]!.detail)
    // Any other member is not accepted, as before.
    expect(detailsOf(run(decodeBatchRequest({ properties: [{ address: "a", callback: 1 }] })))[0]!.detail).toBe(
      "is not an accepted member"
    )
  })
})
