/**
 * What each operation does, in words written once for the reference (OpenAPI, `/docs`) and for the MCP tools
 * a model reads: what it costs, what comes back, and how to act on each refusal. The transports add only
 * their own part (the `Idempotency-Key` header, or the `idempotency_key` argument).
 */

/** How to act on a refusal, by problem slug: the part of an operation's text a caller acts on. */
export const recovery = {
  "ambiguous-address":
    "`ambiguous-address`: the address matched several properties, or may be meant for one it does not name; " +
    "`candidates` lists up to five, and the detail says what the address leaves out. Call again with the one " +
    "meant (ask the user if unsure); a single candidate is such a call too, with what the address left out. " +
    "Only where the detail says no address tells them apart (several properties recorded at exactly one " +
    "address) can it not be scored: do not retry that one. Refunded.",
  "unscorable-address":
    "`unscorable-address`: no property with that street address is on record (or it has no house number), " +
    "or it is on record only as a property this service does not value (a co-op, an apartment building, a " +
    "house with a shop: the detail says so; do not retry it). `suggestions`, when present, lists recorded " +
    "addresses close to it: confirm one with the user before calling again. Refunded.",
  "outside-coverage": "`outside-coverage`: the address is outside every covered area; do not retry. Refunded.",
  "missing-valuation-fact":
    "`missing-valuation-fact`: the record lacks a fact the valuation needs (`missing` names it); call again " +
    "with it in `overrides` if the user knows it. Refunded.",
  "unknown-property": "`unknown-property`: no property has that `property_id`. Refunded.",
  "upstream": "`upstream-unavailable` / `upstream-timeout`: scoring failed this once; retry later: a single " +
    "call with the same idempotency key, a batch's failed entry in a new call with a new key (the batch's key " +
    "replays its whole answer, unless every entry failed). Refunded.",
  "invalid-request": "`invalid-request`: `errors` points at each refused value; fix them and call again. Not charged.",
  "batch-too-large":
    "`batch-too-large`: more than 100 properties (`limit`, `submitted`); split them into batches of at most 100. " +
    "Not charged.",
  "rate-limited": "`rate-limited`: too many requests this minute; wait `retry_after` seconds. Not charged.",
  "unavailable":
    "`ledger-unreachable` / `call-not-started`: the service could not reach its Ledger, so the call did not " +
    "start; retry in a few seconds (over HTTP, its `Retry-After` header says how many). Not charged.",
  "credits":
    "`insufficient-credits` (the Balance is too low), `spend-cap-exceeded`, `rate-limited` (wait `retry_after` " +
    "seconds) and `terms-not-accepted` (the account holder must accept the Terms of Service at `/portal/terms`) are not charged; " +
    "tell the user rather than retrying at once."
} as const

export interface OperationText {
  /** One line: the OpenAPI summary, the MCP tool's title. */
  readonly summary: string
  /** What it does, what it costs and what comes back. */
  readonly description: string
  /** How to act on its refusals (slugs of `recovery`). */
  readonly refusals: ReadonlyArray<keyof typeof recovery>
}

const SAFE_RETRIES = "A call with the same idempotency key and the same request within 24 hours returns the stored " +
  "answer and is not charged again: use one key per intended call, and the same key when retrying it. A key " +
  "already used with another request (or another operation) is refused with `idempotency-key-conflict`, and an " +
  "identical call still running with `duplicate-request-in-flight` (retry after `retry_after` seconds); neither " +
  "is charged."

/** What scoring one property may refuse with: a single call's refusals, and a batch's entries'. */
const SCORING_REFUSALS: ReadonlyArray<keyof typeof recovery> = [
  "ambiguous-address",
  "unscorable-address",
  "outside-coverage",
  "missing-valuation-fact",
  "upstream",
  "invalid-request",
  "credits",
  "unavailable"
]

export const operations = {
  predict: {
    summary: "Score one property (one Credit)",
    description:
      "Values one property from its street address and prices the maximum allowable offer (MAO) for a cash flip " +
      "buyer on hard-money financing. The answer holds the property as recorded (`subject_property`: check it is " +
      "the one meant; `match` says how the address was read), the pricing model's value distribution and " +
      "estimate, the comparable sales' band (`comp_band`), the repaired value (`rehab_adjusted_arv`), the " +
      "`max_allowable_offer` with its `cost_stack` (the most a buyer can pay and still clear the margin: a " +
      "ceiling for their own offer, before any fee of theirs or bargaining, not a price to offer as it is), and " +
      "up to 10 comparable sales. Costs one Credit, refunded " +
      "when the property cannot be found or scored; an answer without `comp_band` (too few comparable sales with " +
      "a usable price), and so without the repaired value and the offer, is a scored answer and is charged: its " +
      "`cautions` say why.\n\nReading it: `rehab_adjusted_arv` is the repaired value " +
      "(ARV) the offer is built on; `pricing_model_arv_estimate` is the model's value of the property as " +
      "recorded, blind to `condition` and the repair budget (not an after-repair value), with its range in " +
      "`value_distribution` (`0.1` to `0.9`: measured out of time, about eight sales in ten across a market, fewer " +
      "where `effective_sample_size` is under 2: four to seven in ten on the New York files). " +
      "`effective_sample_size` is how many equally " +
      "weighted sales the evidence amounts to, often far fewer than `comp_band.comp_count` (a few close sales " +
      "carry most weight); a handful means thin evidence. A comp's `similarity` (0 to 1) covers type, class, " +
      "size, lot and age only: where and when it sold are `distance_miles` and `sale_date` (a market without " +
      "coordinates, such as New York City's, has no distances: its comps' `address`, `facts.neighborhood` and " +
      "`facts.zip_code` say where they are). " +
      "`max_allowable_offer.clamped: true` means no offer clears the margin: its `price` is a $1,000 floor, " +
      "not an offer. `valuation_date` and `evidence` say how current the value is; `currency` what the amounts " +
      "are in. Read `cautions` (when present) before relying on the figures: each says in words what is doubtful " +
      "here (an estimate withheld, no offer and why, a thin band, comparable sales far away, an offer above the property's own recent " +
      "price, its own sale outside the value's range or not counted, an after-repair value below the model's " +
      "range or the property's own recent price, an offer that rises with the repairs, a value as of a date " +
      "before the call's or carrying a premium for a recent resale, a unit of a house of two or three families valued " +
      "as the whole house).",
    refusals: SCORING_REFUSALS
  },
  batch: {
    summary: "Score up to 100 properties (one Credit each)",
    description:
      "Scores 1 to 100 properties in one call, one Credit each, all charged up front. `results` has one entry per " +
      "property in the order sent: a scored entry (the single-property answer without `comps`), or, for a " +
      "property that failed for a covered reason, its Problem Detail (it has `type` and `status`, but no " +
      "`trace_id`: the call's one trace id is its `trace-id` header; entry i answers property i), whose Credit " +
      "is refunded; act on each such entry as on the single call's refusal (listed below), in a new call (a single call, or a " +
      "batch of the entries to retry, with a new idempotency key): the same key replays this whole answer, failed " +
      "entries included, for 24 hours (unless every entry failed: that answer is not kept, and the key runs " +
      "again like an unused one). Any other failure stops the whole batch (503 `spend-indeterminate`) and " +
      "refunds all of it; retry it unchanged. More than 100 properties is refused whole with `batch-too-large` " +
      "(not charged): split it.",
    refusals: [...SCORING_REFUSALS, "batch-too-large"]
  },
  history: {
    summary: "A property's recorded history (one Credit)",
    description:
      "The property's recorded story: every recorded transfer (`chain_of_title`; one that is not a market sale " +
      "says why, and a package sale lists every property on its deed), quick resales (`flips`), its " +
      "listing state and recorded permit work. Name the property by exactly one of `address` or `property_id` " +
      "(a Scored answer's `subject_property.property_id`, or a comparable sale's). `records_from` and " +
      "`records_through` say which years the market's records cover: an empty chain of title or no flips means " +
      "none in those years, not never. A listing state of `unknown` and an empty `permits` say nothing where the " +
      "market's listings or permits were never loaded (the NYC, Melbourne and Sacramento sales files carry none): " +
      "never relay them as \"not for sale\" or \"no work done\". Costs one Credit, refunded when the property " +
      "cannot be found.",
    // (Every refusal it can give: the list had left out the Credits' and scoring's, an assistant developer's audit.)
    refusals: [
      "ambiguous-address",
      "unscorable-address",
      "outside-coverage",
      "unknown-property",
      "upstream",
      "invalid-request",
      "credits",
      "unavailable"
    ]
  },
  validate: {
    summary: "Check a request without spending (free)",
    description:
      "Judges a request exactly as scoring would, without scoring it or spending anything: send either one " +
      "property's members (`address`, …) or a batch's `properties`. Answers `{\"valid\": true}`, or the same " +
      "refusal the paid call would give (`invalid-request` with `errors` pointing at each refused value, " +
      "`batch-too-large`). Whether the address names a property on record is only known by scoring it.",
    refusals: ["invalid-request", "batch-too-large", "rate-limited", "unavailable"]
  }
} satisfies Record<string, OperationText>

/** The operation's description followed by how to act on each of its refusals, as one text. */
export const withRecovery = (operation: OperationText) =>
  [operation.description, "", "If it fails:", ...operation.refusals.map((slug) => `- ${recovery[slug]}`)].join("\n")

/** What repeating a paid call does, for the transports to append. */
export const safeRetries = SAFE_RETRIES
