import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import fc from "fast-check"
import { decodeScoredCall } from "../../schema/decode.js"
import { overridableFactNames } from "../../schema/overrides.js"
import type { InvalidRequest } from "../../schema/problems.js"

const decode = (body: unknown) => Effect.runSync(Effect.either(decodeScoredCall(body)))

const refusal = (body: unknown): InvalidRequest => {
  const result = decode(body)
  if (Either.isRight(result)) throw new Error(`expected a refusal of ${JSON.stringify(body)}`)
  return result.left
}

const pointers = (body: unknown) => refusal(body).errors.map((error) => error.pointer)

const nextYear = new Date().getUTCFullYear() + 1

/** Each fact with an arbitrary valid value and arbitrary invalid values of the right JSON type. */
const facts = {
  bedrooms: {
    valid: fc.integer({ min: 0, max: 50 }),
    outOfRange: fc.oneof(fc.integer({ max: -1 }), fc.integer({ min: 51 }))
  },
  bathrooms: {
    valid: fc.integer({ min: 0, max: 50 }),
    outOfRange: fc.oneof(fc.integer({ max: -1 }), fc.integer({ min: 51 }))
  },
  living_area_square_feet: {
    valid: fc.integer({ min: 100, max: 100_000 }),
    outOfRange: fc.oneof(fc.integer({ max: 99 }), fc.integer({ min: 100_001 }))
  },
  lot_size_square_feet: {
    valid: fc.integer({ min: 1, max: 100_000_000 }),
    outOfRange: fc.oneof(fc.integer({ max: 0 }), fc.integer({ min: 100_000_001 }))
  },
  year_built: {
    valid: fc.integer({ min: 1700, max: nextYear }),
    outOfRange: fc.oneof(fc.integer({ max: 1699 }), fc.integer({ min: nextYear + 1 }))
  },
  property_type: {
    valid: fc.constantFrom("single_family", "two_family", "three_family", "townhouse", "condo", "manufactured"),
    outOfRange: fc.string().filter((s) =>
      !["single_family", "two_family", "three_family", "townhouse", "condo", "manufactured"].includes(s)
    )
  }
} as const

const factName = fc.constantFrom(...overridableFactNames)

/** JSON values of another type than the fact's. */
const wrongType = (name: string) =>
  name === "property_type"
    ? fc.oneof(fc.integer(), fc.boolean(), fc.array(fc.string()), fc.dictionary(fc.string(), fc.integer()))
    : fc.oneof(
      fc.string(),
      fc.boolean(),
      fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Number.isInteger(n)),
      fc.array(fc.integer()),
      fc.dictionary(fc.string(), fc.integer())
    )

/** A one-character edit of a fact name that is not itself a fact name. */
const misspelling = fc.tuple(
  factName,
  fc.nat(),
  fc.constantFrom("delete", "insert", "replace"),
  fc.string({ minLength: 1, maxLength: 1 })
).map(
  ([name, position, edit, char]) => {
    const i = position % name.length
    if (edit === "delete") return name.slice(0, i) + name.slice(i + 1)
    if (edit === "insert") return name.slice(0, i) + char + name.slice(i)
    return name.slice(0, i) + char + name.slice(i + 1)
  }
).filter((name) => !(overridableFactNames as ReadonlyArray<string>).includes(name))

describe("overrides", () => {
  it("OVR-1: exactly the six facts are overridable, and any subset of them with valid values is accepted", () => {
    expect([...overridableFactNames].sort()).toEqual([
      "bathrooms",
      "bedrooms",
      "living_area_square_feet",
      "lot_size_square_feet",
      "property_type",
      "year_built"
    ])
    fc.assert(
      fc.property(
        fc.record(
          Object.fromEntries(Object.entries(facts).map(([name, fact]) => [name, fact.valid])) as {
            [K in keyof typeof facts]: fc.Arbitrary<any>
          },
          { requiredKeys: [] }
        ).filter((overrides) => Object.keys(overrides).length > 0),
        (overrides) => {
          const result = decode({ address: "1 Main St", overrides })
          expect(Either.isRight(result)).toBe(true)
          expect(Either.getOrThrow(result).overrides).toEqual(overrides)
        }
      )
    )
  })

  it("OVR-3: latitude, longitude, partial_bathrooms and address are refused, each pointed at", () => {
    for (const key of ["latitude", "longitude", "partial_bathrooms", "address"]) {
      expect(pointers({ address: "1 Main St", overrides: { [key]: 1 } })).toEqual([`/overrides/${key}`])
      expect(pointers({ address: "1 Main St", overrides: { bedrooms: 2, [key]: "x" } })).toEqual([`/overrides/${key}`])
    }
  })

  it("OVR-3: any key other than the six is refused, whatever its value", () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }).filter((key) =>
          !(overridableFactNames as ReadonlyArray<string>).includes(key) && !["__proto__", "constructor"].includes(key)
        ),
        fc.jsonValue(),
        (key, value) => {
          expect(pointers({ address: "1 Main St", overrides: { [key]: value } })).toContain(
            "/overrides/" + key.replace(/~/g, "~0").replace(/\//g, "~1")
          )
        }
      )
    )
  })

  it("OVR-3: misspellings of the six are refused", () => {
    fc.assert(
      fc.property(misspelling, factName, (typo, real) => {
        const body = { address: "1 Main St", overrides: { [typo]: 3 } }
        expect(pointers(body).some((pointer) => pointer.startsWith("/overrides/"))).toBe(true)
        expect(Either.isLeft(decode({ ...body, overrides: { [real]: facts[real].valid, [typo]: 3 } }))).toBe(true)
      })
    )
  })

  it("OVR-4: a value of the wrong JSON type is refused at its pointer", () => {
    fc.assert(
      fc.property(factName.chain((name) => fc.tuple(fc.constant(name), wrongType(name))), ([name, value]) => {
        expect(pointers({ address: "1 Main St", overrides: { [name]: value } })).toEqual([`/overrides/${name}`])
      })
    )
  })

  it("OVR-4: a value breaking its fact's rule is refused at its pointer", () => {
    fc.assert(
      fc.property(factName.chain((name) => fc.tuple(fc.constant(name), facts[name].outOfRange)), ([name, value]) => {
        expect(pointers({ address: "1 Main St", overrides: { [name]: value } })).toEqual([`/overrides/${name}`])
      })
    )
  })

  it("OVR-4: null is refused for every fact, with a detail that says so", () => {
    for (const name of overridableFactNames) {
      const error = refusal({ address: "1 Main St", overrides: { [name]: null } })
      expect(error.errors).toEqual([{ pointer: `/overrides/${name}`, detail: "must not be null" }])
    }
    expect(pointers({ address: "1 Main St", overrides: null })).toEqual(["/overrides"])
  })

  it("OVR-4: an empty overrides object is refused", () => {
    expect(pointers({ address: "1 Main St", overrides: {} })).toEqual(["/overrides"])
  })

  it("OVR-4: overrides must be an object", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.array(fc.integer())), (overrides) => {
        expect(pointers({ address: "1 Main St", overrides })).toEqual(["/overrides"])
      })
    )
  })

  it("OVR-6: partial_bathrooms can never be overridden, not even beside bathrooms", () => {
    expect(pointers({ address: "1 Main St", overrides: { bathrooms: 2, partial_bathrooms: 1 } })).toEqual([
      "/overrides/partial_bathrooms"
    ])
  })
})
