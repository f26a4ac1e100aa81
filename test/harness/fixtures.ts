/** A scoring outcome for the scripted Scoring fake: a house with four comparable sales. */
import type { ScoringOutcome } from "../../src/valuation/answer.js"

export const outcome: ScoringOutcome = {
  subject: {
    propertyId: "demo-000042",
    address: "42 ELM ST, RIVERTON, ZZ 99103",
    record: {
      property_type: "single_family",
      living_area_square_feet: 1_500,
      lot_size_square_feet: 5_000,
      neighborhood: "RIVERSIDE",
      partial_bathrooms: 1
    }
  },
  model: {
    quantiles: {
      "0.05": 250_000,
      "0.1": 262_000,
      "0.25": 281_000,
      "0.5": 300_000,
      "0.75": 319_000,
      "0.9": 338_000,
      "0.95": 350_000
    },
    mean: 301_000,
    effectiveSampleSize: 8.5
  },
  comps: [1, 2, 3, 4].map((i) => ({
    propertyId: `demo-00010${i}`,
    address: `${i} OAK AVE, RIVERTON, ZZ 99103`,
    saleDate: "2026-05-01",
    salePrice: 290_000 + i * 5_000,
    timeAdjustedPrice: 295_000 + i * 5_000,
    facts: { living_area_square_feet: 1_450 + i * 20 },
    similarity: 1 - i / 10,
    weight: 1 - i / 10
  })),
  dates: { callDate: "2026-05-20", valuationDate: "2026-05-20", dataThrough: "2026-05-15" }
}

/** The recorded history the scripted fake answers for "42 Elm St": a property with nothing recorded yet. */
export const elmStreetHistory = {
  property_id: "p-42",
  address: "42 ELM ST",
  chain_of_title: [],
  flips: [],
  listing: { status: "unknown" as const },
  permits: []
}
