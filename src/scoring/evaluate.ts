/**
 * `propscore evaluate`: imports files into a scratch store (in memory), fits on the sales dated before the
 * split, values every arm's-length sale on or after it as of its own sale date (never from its own parcel's
 * sales), and reports per market MdAPE, PPE10, PPE20 and the 0.1–0.9 coverage, beside the neighbourhood
 * median price-per-square-foot baseline.
 */
import { type ParcelRecord, type ParsedFile, type SaleRecord, withSnapshotFacts } from "../property/records.js"
import type { PropertyData } from "../services/property-store.js"
import { withRepeatRecordsMarked } from "../valuation/history.js"
import { median } from "../valuation/weighted.js"
import { recordedAddress, ScoringEngine } from "./engine.js"
import type { GbtLoss } from "./learner/gbt.js"
import { type Accuracy, accuracy, coverage80 } from "./metrics.js"
import type { ModelOptions } from "./model.js"
import type { StackOptions } from "./stack.js"

/** Several parsed files as one store: a parcel's latest record, each recorded sale once. */
export const scratchStore = (files: ReadonlyArray<ParsedFile>): PropertyData => {
  const parcels = new Map<string, ParcelRecord>()
  const sales = new Map<string, SaleRecord>()
  for (const file of files) {
    for (const parcel of file.parcels) {
      parcels.set(parcel.id, file.snapshotFacts ? withSnapshotFacts(parcels.get(parcel.id), parcel) : parcel)
    }
    for (const sale of file.sales) sales.set(sale.sourceKey, sale)
  }
  // A sale of a kind not valued, where its parcel is one (as the store keeps them).
  for (const file of files) {
    for (const sale of file.otherKindSales ?? []) if (parcels.has(sale.parcelId)) sales.set(sale.sourceKey, sale)
  }
  return {
    parcels: [...parcels.values()],
    sales: [...sales.values()].sort((a, b) => a.saleDate.localeCompare(b.saleDate)),
    unscored: files.flatMap((file) => file.unscored ?? [])
  }
}

export interface MarketReport {
  readonly market: string
  readonly train_sales: number
  readonly test_sales: number
  readonly scored: number
  readonly mdape: number | null
  readonly ppe10: number | null
  readonly ppe20: number | null
  readonly coverage_80: number | null
  /**
   * The scored sales of unusual size (a living area or lot outside the middle 95% of the market × group's
   * training sales): how many, their MdAPE and 0.1–0.9 coverage, and the factor their ranges were widened by.
   */
  readonly unusual_size: {
    readonly scored: number
    readonly mdape: number | null
    readonly coverage_80: number | null
    readonly factor: number | null
  }
  /** Each part of the stack alone, on the same sales (the learner where its market has one). */
  readonly comps_alone: { readonly mdape: number | null; readonly ppe10: number | null }
  readonly learner_alone: { readonly mdape: number | null; readonly ppe10: number | null; readonly scored: number }
  readonly comps_weight: number | null
  /** The loss the market's learner was fitted with ("absolute", "squared"), chosen on the window. */
  readonly learner_loss: string | null
  /** The fewest sales in a leaf of the market's learner, chosen on the window with the loss. */
  readonly learner_min_leaf: number | null
  /** The slope the stack's values are drawn toward the window's median value by (1: not at all). */
  readonly centre_slope: number | null
  /** The exponent the comps' local scale is tempered by in the market's ranges (1: as it is), chosen on the window. */
  readonly scale_exponent: number | null
  readonly baseline: {
    readonly mdape: number | null
    readonly ppe10: number | null
    readonly ppe20: number | null
    readonly scored: number
  }
}

/**
 * One sale on or after the split, as `evaluate` treated it: `scored` (its quantiles), `refused` (the engine's
 * reason), or `excluded` as not arm's-length (the rule that judged it so), so an outside tool can check every
 * choice.
 */
export interface Prediction {
  readonly market: string
  readonly address: string
  readonly sale_date: string
  readonly sale_price: number
  readonly status: "scored" | "refused" | "excluded"
  readonly quantiles?: Readonly<Record<string, number>> | undefined
  readonly reason?: string | undefined
}

export interface EvaluationReport {
  readonly split_date: string
  readonly markets: ReadonlyArray<MarketReport>
}

const orNull = (accuracyOf: Accuracy | undefined, key: keyof Accuracy) => accuracyOf?.[key] ?? null

/** The baseline: the neighbourhood's median training price per square foot times the living area. */
const baselineOf = (train: ReadonlyArray<{ parcel: ParcelRecord; sale: SaleRecord }>) => {
  const perFoot = new Map<string, Array<number>>()
  for (const { parcel, sale } of train) {
    if (!parcel.livingAreaSquareFeet) continue
    for (const key of [`${parcel.market}|${parcel.neighborhood ?? ""}`, `${parcel.market}|*`]) {
      const list = perFoot.get(key) ?? []
      list.push(sale.price / parcel.livingAreaSquareFeet)
      perFoot.set(key, list)
    }
  }
  const medians = new Map([...perFoot].map(([key, values]) => [key, median(values)!]))
  return (parcel: ParcelRecord) => {
    if (!parcel.livingAreaSquareFeet) return undefined
    const m = medians.get(`${parcel.market}|${parcel.neighborhood ?? ""}`) ?? medians.get(`${parcel.market}|*`)
    return m === undefined ? undefined : m * parcel.livingAreaSquareFeet
  }
}

export const evaluate = (
  data: PropertyData,
  splitDate: string,
  options: {
    readonly until?: string
    readonly model?: Partial<ModelOptions>
    readonly stack?: Partial<StackOptions>
  } = {}
): { report: EvaluationReport; predictions: Array<Prediction> } => {
  const engine = ScoringEngine.build(data, {
    salesBefore: splitDate,
    ...(options.model ? { model: options.model } : {}),
    ...(options.stack ? { stack: options.stack } : {})
  })
  const parcels = new Map(data.parcels.map((parcel) => [parcel.id, parcel]))
  // Each repeat record of a sale is excluded with the rule, as the engine does not count it (`modelSales`).
  const recorded = withRepeatRecordsMarked(data.sales).flatMap((sale) => {
    const parcel = parcels.get(sale.parcelId)
    return parcel ? [{ parcel, sale }] : []
  })
  const isArmsLength = ({ sale }: { sale: SaleRecord }) => sale.armsLength && sale.price > 0
  const inTest = ({ sale }: { sale: SaleRecord }) =>
    sale.saleDate >= splitDate && (options.until === undefined || sale.saleDate < options.until)
  const train = recorded.filter((entry) => isArmsLength(entry) && entry.sale.saleDate < splitDate)
  const test = recorded.filter((entry) => isArmsLength(entry) && inTest(entry))
  const baseline = baselineOf(train)
  const predictions: Array<Prediction> = recorded.filter((entry) => !isArmsLength(entry) && inTest(entry)).map((
    { parcel, sale }
  ) => ({
    market: parcel.market,
    address: recordedAddress(parcel),
    sale_date: sale.saleDate,
    sale_price: sale.price,
    status: "excluded",
    reason: `not arm's-length: ${sale.notArmsLengthBecause ?? (sale.price > 0 ? "recorded as such" : "no price")}`
  }))
  const byMarket = new Map<
    string,
    {
      train: number
      test: number
      scored: Array<{ actual: number; predicted: number; q10: number; q90: number }>
      baseline: Array<{ actual: number; predicted: number }>
      comps: Array<{ actual: number; predicted: number }>
      learner: Array<{ actual: number; predicted: number }>
      compsWeight: number | null
      unusualSize: Array<{ actual: number; predicted: number; q10: number; q90: number }>
      unusualSizeFactor: number | null
    }
  >()
  const market = (name: string) => {
    let entry = byMarket.get(name)
    if (!entry) {
      byMarket.set(
        name,
        entry = {
          train: 0,
          test: 0,
          scored: [],
          baseline: [],
          comps: [],
          learner: [],
          compsWeight: null,
          unusualSize: [],
          unusualSizeFactor: null
        }
      )
    }
    return entry
  }
  for (const { parcel } of train) market(parcel.market).train++
  for (const { parcel, sale } of test) {
    const entry = market(parcel.market)
    entry.test++
    const outcome = engine.valueParcel({ parcel }, undefined, sale.saleDate)
    const base = baseline(parcel)
    if (base !== undefined) entry.baseline.push({ actual: sale.price, predicted: base })
    const address = recordedAddress(parcel)
    if (outcome._tag === "Left") {
      predictions.push({
        market: parcel.market,
        address,
        sale_date: sale.saleDate,
        sale_price: sale.price,
        status: "refused",
        reason: outcome.left.detail
      })
      continue
    }
    const q = outcome.right.model.quantiles
    const scored = { actual: sale.price, predicted: q["0.5"], q10: q["0.1"], q90: q["0.9"] }
    entry.scored.push(scored)
    const unusualSize = outcome.right.model.unusualSize
    if (unusualSize !== undefined) {
      entry.unusualSize.push(scored)
      entry.unusualSizeFactor = unusualSize.factor
    }
    const parts = outcome.right.model.parts
    if (parts !== undefined) {
      entry.comps.push({ actual: sale.price, predicted: parts.comps })
      if (parts.learner !== undefined) entry.learner.push({ actual: sale.price, predicted: parts.learner })
      entry.compsWeight = parts.compsWeight
    }
    predictions.push({
      market: parcel.market,
      address,
      sale_date: sale.saleDate,
      sale_price: sale.price,
      status: "scored",
      quantiles: q
    })
  }
  predictions.sort((a, b) => a.sale_date.localeCompare(b.sale_date) || a.address.localeCompare(b.address))
  const markets = [...byMarket.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([name, entry]): MarketReport => {
    const model = accuracy(entry.scored)
    const base = accuracy(entry.baseline)
    return {
      market: name,
      train_sales: entry.train,
      test_sales: entry.test,
      scored: entry.scored.length,
      mdape: orNull(model, "mdape"),
      ppe10: orNull(model, "ppe10"),
      ppe20: orNull(model, "ppe20"),
      coverage_80: coverage80(entry.scored) ?? null,
      unusual_size: {
        scored: entry.unusualSize.length,
        mdape: orNull(accuracy(entry.unusualSize), "mdape"),
        coverage_80: coverage80(entry.unusualSize) ?? null,
        factor: entry.unusualSizeFactor
      },
      comps_alone: { mdape: orNull(accuracy(entry.comps), "mdape"), ppe10: orNull(accuracy(entry.comps), "ppe10") },
      learner_alone: {
        mdape: orNull(accuracy(entry.learner), "mdape"),
        ppe10: orNull(accuracy(entry.learner), "ppe10"),
        scored: entry.learner.length
      },
      comps_weight: entry.compsWeight,
      learner_loss: lossName(engine.stack.learnerLoss(name)),
      learner_min_leaf: engine.stack.learnerMinLeaf(name) ?? null,
      centre_slope: engine.stack.centreSlope(name) ?? null,
      scale_exponent: engine.stack.scaleExponent(name) ?? null,
      baseline: {
        mdape: orNull(base, "mdape"),
        ppe10: orNull(base, "ppe10"),
        ppe20: orNull(base, "ppe20"),
        scored: entry.baseline.length
      }
    }
  })
  return { report: { split_date: splitDate, markets }, predictions }
}

const lossName = (loss: GbtLoss | undefined) =>
  loss === undefined ? null : typeof loss === "string" ? loss : `quantile ${loss.quantile}`

const percent = (value: number | null) => (value === null ? "-" : `${(value * 100).toFixed(2)}%`)

export const formatEvaluation = (report: EvaluationReport) => {
  const header = [
    "market",
    "train",
    "test",
    "scored",
    "MdAPE",
    "PPE10",
    "PPE20",
    "cover80",
    "unusual size (MdAPE/cover80/factor)",
    "comps MdAPE",
    "learner MdAPE",
    "comps weight",
    "learner loss",
    "leaf",
    "slope",
    "scale exp",
    "base MdAPE",
    "base PPE10",
    "base PPE20"
  ]
  const rows = report.markets.map((m) => [
    m.market,
    String(m.train_sales),
    String(m.test_sales),
    String(m.scored),
    percent(m.mdape),
    percent(m.ppe10),
    percent(m.ppe20),
    percent(m.coverage_80),
    m.unusual_size.scored === 0 ?
      "-" :
      `${m.unusual_size.scored}: ${percent(m.unusual_size.mdape)} / ${percent(m.unusual_size.coverage_80)} / ${
        m.unusual_size.factor?.toFixed(2) ?? "-"
      }`,
    percent(m.comps_alone.mdape),
    percent(m.learner_alone.mdape),
    m.comps_weight === null ? "-" : m.comps_weight.toFixed(2),
    m.learner_loss ?? "-",
    m.learner_min_leaf === null ? "-" : String(m.learner_min_leaf),
    m.centre_slope === null ? "-" : m.centre_slope.toFixed(2),
    m.scale_exponent === null ? "-" : m.scale_exponent.toFixed(2),
    percent(m.baseline.mdape),
    percent(m.baseline.ppe10),
    percent(m.baseline.ppe20)
  ])
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  const line = (cells: Array<string>) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ")
  return [`split date ${report.split_date}`, line(header), ...rows.map(line)].join("\n")
}

const quantileColumns = ["0.05", "0.1", "0.25", "0.5", "0.75", "0.9", "0.95"]

/**
 * The --predictions CSV: one row per recorded sale on or after the split, whatever became of it (`status`:
 * scored, refused or excluded, with the `reason`).
 */
export const predictionsCsv = (predictions: ReadonlyArray<Prediction>) => {
  const escape = (value: string) => (/[",\n]/.test(value) ? `"${value.replace(/"/g, "\"\"")}"` : value)
  const rows = predictions.map((p) =>
    [
      escape(p.market),
      escape(p.address),
      p.sale_date,
      String(p.sale_price),
      p.status,
      ...quantileColumns.map((level) => (p.quantiles ? String(Math.round(p.quantiles[level]!)) : "")),
      escape(p.reason ?? "")
    ].join(",")
  )
  return ["market,address,sale_date,sale_price,status,q05,q10,q25,q50,q75,q90,q95,reason", ...rows].join("\n") + "\n"
}
