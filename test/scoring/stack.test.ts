/**
 * The stack chooses each market's learner loss on its out-of-time window: absolute where the recorded prices
 * carry a tail of sales no record fact explains, and whatever a market's options allow.
 * Its calibration window is valued as the parts serve: from a model fitted on the sales before it.
 */
import { describe, expect, it } from "@effect/vitest"
import { generateDemoCounty } from "../../src/property/demo-county.js"
import { monthIndex } from "../../src/scoring/comps/calendar.js"
import { QUANTILE_LEVELS } from "../../src/scoring/comps/types.js"
import { modelSales } from "../../src/scoring/engine.js"
import { fitModel, type Model } from "../../src/scoring/model.js"
import {
  type Blend,
  blendOf,
  centreSlope,
  defaultStackOptions,
  learnerResalePremiums,
  StackedModel,
  type WindowValuation
} from "../../src/scoring/stack.js"
import { sizeRangesOf, unusualSizeFacts } from "../../src/scoring/unusual-size.js"
import { seededRandom } from "../../src/seeded-random.js"
import { turnEventLoop } from "../harness/event-loop.js"

const county = generateDemoCounty()
const sales = modelSales({ parcels: county.parcels, sales: county.sales })
const market = sales[0]!.market
/** Fewer trees than served (the choice is the same mechanism): the two stack fits stay quick. */
const quick = { ...defaultStackOptions, learner: { ...defaultStackOptions.learner, trees: 100 } }
/**
 * These tests only compute (fits of seconds each on a quiet machine), so their limit is there to catch a hang,
 * never a slow machine: on two cores shared with other work, a test of 11 s took 62 s and failed at 60 s.
 */
const FITTING_TIMEOUT = 600_000
/** The county's comps model and its quick stack, fitted once for the tests that value the sales as they are. */
const once = <A>(make: () => A) => {
  let made: { readonly value: A } | undefined
  return () => (made ??= { value: make() }).value
}
const compsOfSales = once(() => fitModel([...sales], {}))
const quickStackOfSales = once(() => StackedModel.fit(compsOfSales(), sales, quick))

/** A fifth of the sales recorded at a third to two thirds of their price, still marked arm's-length. */
const withNonMarketTail = () => {
  const random = seededRandom(7)
  return sales.map((sale) => random() < 0.2 ? { ...sale, price: Math.round(sale.price * (0.33 + random() / 3)) } : sale)
}

describe("the stack's learner loss", () => {
  it("is absolute where a tail of recorded prices is not the market's, even when squared is listed first", () => {
    const tailed = withNonMarketTail()
    // Squared first: a tie or a choice that was never made would keep it.
    const stack = StackedModel.fit(fitModel([...tailed], {}), tailed, {
      ...quick,
      learnerLosses: ["squared", "absolute"]
    })
    expect(stack.hasLearners).toBe(true)
    expect(stack.learnerLoss(market)).toBe("absolute")
  }, FITTING_TIMEOUT)

  it("is the only candidate when the options name one", () => {
    const stack = StackedModel.fit(compsOfSales(), sales, {
      ...quick,
      learnerLosses: ["squared"]
    })
    expect(stack.learnerLoss(market)).toBe("squared")
  }, FITTING_TIMEOUT)

  it("comes with the capacity chosen among the candidates, or the only one named", async () => {
    const only = StackedModel.fit(compsOfSales(), sales, {
      ...quick,
      learnerLosses: ["absolute"],
      learnerCapacities: [{ minLeaf: 35 }]
    })
    expect(only.learnerMinLeaf(market)).toBe(35)
    await turnEventLoop()
    // Chosen by the window's error, not by the order of the list: leaves of at least 5,000 sales (a handful
    // per tree) listed first lose to the default's 20.
    const chosen = StackedModel.fit(compsOfSales(), sales, {
      ...quick,
      learnerLosses: ["absolute"],
      learnerCapacities: [{ minLeaf: 5_000 }, {}]
    })
    expect(chosen.learnerMinLeaf(market)).toBe(quick.learner.minLeaf)
  }, FITTING_TIMEOUT)
})

describe("the stack's calibration window", () => {
  it(
    "is valued out of time: a step in prices inside the window shows in its residuals, not in the comps' fit",
    async () => {
      const lastMonth = Math.max(...sales.map((sale) => monthIndex(sale.date)))
      const windowStart = lastMonth - defaultStackOptions.windowMonths + 1
      // Every sale of the window recorded at 1.25 times its price: a step the sales before the window never saw
      // (a larger one makes them outliers of the model fitted on every sale, and the window too small to blend).
      const stepped = sales.map((sale) =>
        monthIndex(sale.date) >= windowStart ? { ...sale, price: Math.round(sale.price * 1.25) } : sale
      )
      const medianZ = (stack: StackedModel) => {
        const blend = new Map(stack.toData().blends).get(market)!
        return blend.z[QUANTILE_LEVELS.indexOf("0.5")]!
      }
      const flat = medianZ(quickStackOfSales())
      await turnEventLoop()
      const step = medianZ(StackedModel.fit(fitModel([...stepped], {}), stepped, quick))
      // Valued by a comps model fitted on every sale (its month index has the step), the comps would value the
      // window at its stepped prices and the blend would lean on them: the median z-value moved by 0.88 when
      // the window was valued that way (the learners, fitted before each month, missed the step).
      // Valued as they serve, from the sales before the window, both parts miss the step by log 1.25 = 0.22,
      // about two of the comps' local scales (the median z-value moves by 2.0).
      expect(step - flat).toBeGreaterThan(1.5)
    },
    FITTING_TIMEOUT
  )
})

describe("the stack's centre slope", () => {
  // Window values whose error is added to the market's own spread: prices regress toward the middle.
  const random = seededRandom(11)
  const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random())
  const truth = Array.from({ length: 3_000 }, () => 13 + 0.4 * normal())
  const prices = truth.map((value) => value + 0.1 * normal())

  it("draws values estimated with error toward the window's middle, by the slope the window shows", () => {
    // Values with an error as large as half the market's spread: E[price | value] has slope 0.8.
    const noisy = truth.map((value) => value + 0.2 * normal())
    const { pivot, slope } = centreSlope(prices, noisy, defaultStackOptions.centreSlopes)
    expect(slope).toBeLessThanOrEqual(0.85)
    expect(pivot).toBeCloseTo(13, 1)
  })

  it("keeps values that are not too far from the middle as they are, and never stretches them", () => {
    expect(centreSlope(prices, truth, defaultStackOptions.centreSlopes).slope).toBe(1)
    // Values drawn in too far would want a stretch (slope 1.25); only the candidates are ever taken.
    const shrunk = truth.map((value) => 13 + 0.8 * (value - 13))
    expect(centreSlope(prices, shrunk, defaultStackOptions.centreSlopes).slope).toBe(1)
    expect(centreSlope(prices, shrunk, [1, 1.25]).slope).toBe(1.25)
  })

  it("is applied to every value served: the centre is drawn toward the pivot, the range with it", () => {
    const comps = compsOfSales()
    const data = quickStackOfSales().toData()
    const [name, blend] = data.blends.find(([blendMarket]) => blendMarket === market)!
    const servedAt = (slope: number) => {
      const value = StackedModel.fromData(comps, { ...data, blends: [[name, { ...blend, slope }]] })
        .value(sales.at(-1)!, "2026-11-01")
      if ("reason" in value) throw new Error(value.reason)
      return value
    }
    const [asIs, drawn] = [servedAt(1), servedAt(0.8)]
    expect(asIs.center).not.toBeCloseTo(blend.pivot, 2)
    expect(drawn.center).toBeCloseTo(blend.pivot + 0.8 * (asIs.center - blend.pivot), 10)
    expect(Math.log(drawn.quantiles["0.9"] / asIs.quantiles["0.9"])).toBeCloseTo(drawn.center - asIs.center, 10)
  }, FITTING_TIMEOUT)
})

describe("the learner's own recent-resale premium (its trees are fitted on the purchase a resale follows)", () => {
  const row = (logPrice: number, learner: number, resale: boolean, group: "house" | "condo"): WindowValuation => ({
    market,
    logPrice,
    comps: logPrice,
    learner,
    scale: 0.2,
    unusualSize: false,
    group,
    resale
  })
  // 200 houses valued right by the learner give or take 0.05, 20 resales of them 0.15 above their values.
  const spread = (i: number) => 0.05 * Math.sin(i)
  const houses = [
    ...Array.from({ length: 200 }, (_, i) => row(13 + spread(i), 13, false, "house")),
    ...Array.from({ length: 20 }, (_, i) => row(13.15 + spread(i), 13, true, "house"))
  ]

  it("is how much further above the learner's value a window's resales sold than its other sales, shrunk toward the prior", () => {
    expect(learnerResalePremiums(houses, 0).house).toBeCloseTo(0.15, 2)
    // 20 resales and 20 pseudo-resales of a prior of 0.05: halfway.
    expect(learnerResalePremiums(houses, 20, { house: 0.05 }).house).toBeCloseTo(0.1, 2)
    // No resale in the window: the prior's.
    expect(learnerResalePremiums(houses.filter((r) => !r.resale), 20, { house: 0.05 }).house).toBeCloseTo(0.05, 10)
    expect(learnerResalePremiums(houses.filter((r) => !r.resale), 20)).toEqual({})
  })

  it("is measured for houses only: a condominium unit resold is as often a move as a renovation", () => {
    const condos = houses.map((r) => ({ ...r, group: "condo" as const }))
    expect(learnerResalePremiums(condos, 0)).toEqual({})
    expect(learnerResalePremiums([...houses, ...condos], 0)).toEqual({ house: expect.closeTo(0.15, 2) })
  })

  it("is measured on the window: where resales sell above the rest, the fitted blend carries it", () => {
    // Each house sold again 3 to 24 months after its purchase resold 35% higher (a renovation's resale).
    const byParcel = new Map<string, Array<string>>()
    for (const sale of sales) byParcel.set(sale.parcelKey, [...(byParcel.get(sale.parcelKey) ?? []), sale.date])
    const monthsBetween = (from: string, to: string) => (Date.parse(to) - Date.parse(from)) / (86_400_000 * 365.25 / 12)
    const isResale = (sale: (typeof sales)[number]) =>
      sale.propertyType !== "condo" &&
      (byParcel.get(sale.parcelKey) ?? []).some((date) =>
        monthsBetween(date, sale.date) >= 3 && monthsBetween(date, sale.date) <= 24
      )
    const marked = sales.map((sale) => isResale(sale) ? { ...sale, price: Math.round(sale.price * 1.35) } : sale)
    expect(marked.filter(isResale).length).toBeGreaterThan(100)
    const premiumOf = (stack: StackedModel) =>
      stack.toData().blends.find(([blendMarket]) => blendMarket === market)![1].learnerResalePremium?.house ?? 0
    const markedPremium = premiumOf(StackedModel.fit(fitModel([...marked], {}), marked, quick))
    expect(markedPremium - premiumOf(quickStackOfSales())).toBeGreaterThan(0.1)
  }, FITTING_TIMEOUT)

  it(
    "is added to the learner's value of a recent resale of the group, carried by the learner's weight and the slope, and said in the premium",
    () => {
      const comps = compsOfSales()
      const data = quickStackOfSales().toData()
      const [name, blend] = data.blends.find(([blendMarket]) => blendMarket === market)!
      const stackWith = (premium: Partial<Record<"house" | "condo", number>>) =>
        StackedModel.fromData(comps, { ...data, blends: [[name, { ...blend, learnerResalePremium: premium }]] })
      const [none, some] = [stackWith({}), stackWith({ house: 0.2 })]
      // A house the comps model finds a recent resale as of six months after its own sale, and one sold too long ago.
      const asOf = (sale: (typeof sales)[number], months: number) => {
        const date = new Date(`${sale.date}T00:00:00Z`)
        date.setUTCMonth(date.getUTCMonth() + months)
        return date.toISOString().slice(0, 10)
      }
      const house = sales.find((sale) => sale.propertyType !== "condo" && sale.date < "2026-01-01")!
      const at = (stack: StackedModel, months: number) => {
        const valuation = stack.value(house, asOf(house, months))
        if ("reason" in valuation) throw new Error(valuation.reason)
        return valuation
      }
      const [before, after] = [at(none, 6), at(some, 6)]
      expect(before.resaleSaleDate).toBeDefined()
      const learnerShare = blend.slope * (1 - blend.compsWeight)
      expect(learnerShare).toBeGreaterThan(0)
      expect(after.center - before.center).toBeCloseTo(learnerShare * 0.2, 10)
      expect((after.parts.resalePremium ?? 0) - (before.parts.resalePremium ?? 0)).toBeCloseTo(learnerShare * 0.2, 10)
      // Its own sale 30 months back: no resale, no premium of either part.
      const [late, lateWith] = [at(none, 30), at(some, 30)]
      expect(late.resaleSaleDate).toBeUndefined()
      expect(lateWith.center).toBe(late.center)
      expect(lateWith.parts.resalePremium).toBeUndefined()
    },
    FITTING_TIMEOUT
  )
})

/** A served valuation as of a day past the demo county's data (a refusal fails the test). */
const value = (stack: StackedModel, subject: (typeof sales)[number]) => {
  const valuation = stack.value(subject, "2026-11-01")
  if ("reason" in valuation) throw new Error(valuation.reason)
  return valuation
}
/** The log width of a valuation's 0.1–0.9 range. */
const width = (valuation: ReturnType<typeof value>) => Math.log(valuation.quantiles["0.9"] / valuation.quantiles["0.1"])

describe("the ranges of properties of unusual size", () => {
  // The sales of unusual size (for houses and for their type: `unusualSizeFacts`) recorded at prices further
  // from their values (the NYC and Melbourne windows measured 1.15–1.41 times further), the rest as they are.
  const ranges = sizeRangesOf(sales)
  const outside = (sale: (typeof sales)[number]) => unusualSizeFacts(ranges, sale).length > 0
  const areas = sales.flatMap((sale) => sale.livingArea === undefined ? [] : [sale.livingArea]).sort((a, b) => a - b)
  const [low, high] = [areas[Math.floor(areas.length * 0.02)]!, areas[Math.floor(areas.length * 0.98)]!]
  const random = seededRandom(5)
  const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random())
  const noisy = sales.map((sale) =>
    outside(sale) ? { ...sale, price: Math.round(sale.price * Math.exp(0.5 * normal())) } : sale
  )
  const unusual = noisy.findLast((sale) => outside(sale) && sale.livingArea! > high)!
  const usual = noisy.findLast((sale) =>
    sale.livingArea !== undefined && sale.livingArea > low && sale.livingArea < high
  )!

  it("are widened about their median by the factor the window measured, and only theirs", () => {
    const comps = fitModel([...noisy], {})
    // A year's window: one of three months holds only a few such sales (about 2.4% of the county's are of
    // unusual size), which SPREAD_PSEUDO_COUNT shrinks to nearly 1.
    const yearsWindow = { ...quick, windowMonths: 12 }
    const data = StackedModel.fit(comps, noisy, yearsWindow).toData()
    const [name, blend] = data.blends.find(([blendMarket]) => blendMarket === market)!
    expect(blend.unusualSizeFactor).toBeGreaterThan(1.3)
    // (The same sales at their own prices: none wider.)
    const clean = StackedModel.fit(compsOfSales(), sales, yearsWindow).toData()
    expect(clean.blends.find(([blendMarket]) => blendMarket === market)![1].unusualSizeFactor).toBeLessThan(1.1)
    // Served from the data another thread sends (the ranges of sizes travel with it), and with the factor at 1.
    const served = StackedModel.fromData(comps, data)
    const unwidened = StackedModel.fromData(comps, { ...data, blends: [[name, { ...blend, unusualSizeFactor: 1 }]] })
    expect(served.unusualSize(unusual)?.facts).toContain("living_area_square_feet")
    expect(served.unusualSize(unusual)?.factor).toBe(blend.unusualSizeFactor)
    expect(value(served, unusual).quantiles["0.5"]).toBeCloseTo(value(unwidened, unusual).quantiles["0.5"], 6)
    expect(width(value(served, unusual))).toBeCloseTo(width(value(unwidened, unusual)) * blend.unusualSizeFactor, 9)
    expect(value(served, unusual).parts.unusualSize?.factor).toBe(blend.unusualSizeFactor)
    expect(served.unusualSize(usual)).toBeUndefined()
    expect(value(served, usual).quantiles).toEqual(value(unwidened, usual).quantiles)
  }, FITTING_TIMEOUT)
})

describe("the ranges of each property group", () => {
  // Condos' prices recorded further from their values than houses' (Manhattan's window: its townhouses'
  // residuals 1.3 times further out than its condos'), the houses as they are.
  const random = seededRandom(11)
  const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random())
  const noisy = sales.map((sale) =>
    sale.propertyType === "condo" ? { ...sale, price: Math.round(sale.price * Math.exp(0.8 * normal())) } : sale
  )
  const condo = noisy.findLast((sale) => sale.propertyType === "condo")!
  const house = noisy.findLast((sale) => sale.propertyType === "single_family")!

  it(
    "are widened about their median by the factor the window measured for the group, and only the wider group's",
    () => {
      const comps = fitModel([...noisy], {})
      const data = StackedModel.fit(comps, noisy, quick).toData()
      const [name, blend] = data.blends.find(([blendMarket]) => blendMarket === market)!
      expect(blend.groupFactors.condo).toBeGreaterThan(1.1)
      expect(blend.groupFactors.house).toBeLessThan(1.05)
      const served = StackedModel.fromData(comps, data)
      const unwidened = StackedModel.fromData(comps, { ...data, blends: [[name, { ...blend, groupFactors: {} }]] })
      for (const subject of [condo, house]) {
        const factor = blend.groupFactors[subject.propertyType === "condo" ? "condo" : "house"]!
        expect(value(served, subject).quantiles["0.5"]).toBeCloseTo(value(unwidened, subject).quantiles["0.5"], 6)
        expect(width(value(served, subject)) / width(value(unwidened, subject))).toBeCloseTo(factor, 9)
      }
    },
    FITTING_TIMEOUT
  )
})

describe("the comps model serving a market alone (too few sales for a learner)", () => {
  // A market of a few hundred sales, as a small county's file is: a sample of the county's first four fifths,
  // valued on the last fifth as of each sale's date.
  const byDate = [...sales].sort((a, b) => a.date.localeCompare(b.date))
  const split = byDate[Math.floor(byDate.length * 0.8)]!.date
  const sampleOf = (size: number) => {
    const random = seededRandom(1)
    return byDate.filter((sale) => sale.date < split && random() < size / (byDate.length * 0.8))
  }
  const later = byDate.filter((sale) => sale.date >= split && sale.armsLength && sale.price > 0).slice(0, 2_000)
  /** The share of the later sales' prices inside the 0.1–0.9 range each model gives them. */
  const coverage = (...models: ReadonlyArray<Pick<Model, "value">>) => {
    const inside = models.map(() => 0)
    let valued = 0
    for (const sale of later) {
      const valuations = models.map((model) => model.value(sale, sale.date))
      if (valuations.some((valuation) => "reason" in valuation)) continue
      valued++
      valuations.forEach((valuation, i) => {
        if ("reason" in valuation) return
        if (sale.price >= valuation.quantiles["0.1"] && sale.price <= valuation.quantiles["0.9"]) inside[i]++
      })
    }
    return inside.map((count) => count / valued)
  }

  it("has its range calibrated out of time on the market's latest sales, about the comps model's own value", () => {
    const train = sampleOf(150)
    expect(train.length).toBeLessThan(defaultStackOptions.minLearnerSales)
    const comps = fitModel([...train], {})
    const stack = StackedModel.fit(comps, train, defaultStackOptions)
    expect(stack.hasLearners).toBe(false)
    const blend = new Map(stack.toData().blends).get(market)
    expect(blend?.compsAlone).toBe(true)
    expect(blend?.compsWeight).toBe(1)
    expect(blend?.windowSales).toBeGreaterThanOrEqual(defaultStackOptions.minCompsAloneWindowSales)
    // The value is the comps model's; only its range is the window's.
    let compared = 0
    for (const subject of later.slice(0, 50)) {
      const [fromStack, fromComps] = [stack.value(subject, subject.date), comps.value(subject, subject.date)]
      if ("reason" in fromStack || "reason" in fromComps) continue
      expect(fromStack.quantiles["0.5"]).toBeCloseTo(fromComps.quantiles["0.5"], 6)
      compared++
    }
    expect(compared).toBeGreaterThan(30)
    // The comps model's own calibration (leave-one-out on sales its regressions saw) held about half of the
    // later prices; the range calibrated out of time three quarters (0.741 against 0.527).
    const [own, served] = coverage(comps, stack)
    expect(own).toBeLessThan(0.6)
    expect(served! - own!).toBeGreaterThan(0.15)
    expect(served).toBeLessThan(0.9)
  }, FITTING_TIMEOUT)

  it("keeps the comps model's own calibration where the window holds too few sales to calibrate", () => {
    // The market of the test above, whose window values 64 sales: fewer than a minimum of 1,000.
    const train = sampleOf(150)
    const comps = fitModel([...train], {})
    const calibrated = StackedModel.fit(comps, train, defaultStackOptions)
    expect(new Map(calibrated.toData().blends).get(market)?.windowSales).toBeLessThan(1_000)
    const stack = StackedModel.fit(comps, train, { ...defaultStackOptions, minCompsAloneWindowSales: 1_000 })
    expect(new Map(stack.toData().blends).has(market)).toBe(false)
    const valued = later.filter((subject) => !("reason" in comps.value(subject, subject.date))).slice(0, 20)
    expect(valued.length).toBe(20)
    for (const subject of valued) {
      const [fromStack, fromComps] = [stack.value(subject, subject.date), comps.value(subject, subject.date)]
      if ("reason" in fromStack || "reason" in fromComps) throw new Error("not valued")
      expect(fromStack.quantiles).toEqual(fromComps.quantiles)
    }
  }, FITTING_TIMEOUT)
})

describe("the ranges' scale, tempered where the window shows errors growing less than the comps' spread", () => {
  // A window whose residuals grow with the square root of the comps' local scale: ranges in proportion to the
  // scale hold too few prices where it is small and too many where it is large (as the real files' did).
  const random = seededRandom(5)
  const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random())
  const reference = 0.25
  const windowOf = (truth: number): Array<WindowValuation> =>
    Array.from({ length: 4_000 }, () => {
      const scale = reference * Math.exp(0.8 * normal())
      const centre = 13 + 0.3 * normal()
      return {
        market,
        logPrice: centre + reference * Math.pow(scale / reference, truth) * normal(),
        comps: centre,
        learner: centre,
        scale,
        unusualSize: false,
        group: "house" as const,
        resale: false
      }
    })
  /** The 0.1–0.9 coverage of the window's own sales in its narrowest and widest thirds of scale. */
  const coverageByScale = (blend: Blend, rows: ReadonlyArray<WindowValuation>) => {
    const sorted = [...rows].sort((a, b) => a.scale - b.scale)
    const [z10, z90] = [blend.z[QUANTILE_LEVELS.indexOf("0.1")]!, blend.z[QUANTILE_LEVELS.indexOf("0.9")]!]
    const held = (part: ReadonlyArray<WindowValuation>) =>
      part.filter((row) => {
        const scale = blend.scaleExponent === undefined
          ? row.scale
          : blend.scaleReference! * Math.pow(row.scale / blend.scaleReference!, blend.scaleExponent)
        const residual = (row.logPrice - row.comps) / scale
        return residual >= z10 && residual <= z90
      }).length / part.length
    const third = Math.floor(sorted.length / 3)
    return { narrow: held(sorted.slice(0, third)), wide: held(sorted.slice(-third)) }
  }

  it("chooses the exponent whose window quantiles score best, and calibrates its range on it", () => {
    const rows = windowOf(0.5)
    const proportional = blendOf(rows, 1, [1], [1])
    expect(proportional.scaleExponent).toBeUndefined()
    const before = coverageByScale(proportional, rows)
    expect(before.narrow).toBeLessThan(0.7)
    expect(before.wide).toBeGreaterThan(0.9)
    const chosen = blendOf(rows, 1, [1], [1, 0.75, 0.5, 0.25, 0])
    expect(chosen.scaleExponent).toBe(0.5)
    expect(chosen.scaleReference).toBeCloseTo(reference, 1)
    const after = coverageByScale(chosen, rows)
    expect(Math.abs(after.narrow - 0.8)).toBeLessThan(0.04)
    expect(Math.abs(after.wide - 0.8)).toBeLessThan(0.04)
    // As served: at most the mildest step.
    expect(blendOf(rows, 1, [1], defaultStackOptions.scaleExponents).scaleExponent).toBe(0.75)
    // Where the errors do grow in proportion to the scale, it is kept as it is.
    expect(blendOf(windowOf(1), 1, [1], [1, 0.75, 0.5, 0.25, 0]).scaleExponent).toBeUndefined()
    // The reference a served range is tempered toward is the served model's, where it is given.
    expect(blendOf(rows, 1, [1], [1, 0.5], 0.2).scaleReference).toBe(0.2)
  })

  it("serves a range drawn in the tempered scale, and a kept blend without an exponent as before", () => {
    const comps = compsOfSales()
    const data = quickStackOfSales().toData()
    const [name, blend] = data.blends.find(([blendMarket]) => blendMarket === market)!
    const untempered = { ...blend, scaleExponent: undefined, scaleReference: undefined }
    const asBefore = StackedModel.fromData(comps, { ...data, blends: [[name, untempered]] })
    const tempered = StackedModel.fromData(comps, {
      ...data,
      blends: [[name, { ...untempered, scaleExponent: 0.5, scaleReference: 0.3 }]]
    })
    let compared = 0
    for (const subject of sales.slice(-400, -300)) {
      // As of the sale's day: no months past the data to widen the range by.
      const [own, before, after] = [
        comps.value(subject, subject.date),
        asBefore.value(subject, subject.date),
        tempered.value(subject, subject.date)
      ]
      if ("reason" in own || "reason" in before || "reason" in after) continue
      const ratio = Math.log(after.quantiles["0.9"] / after.quantiles["0.1"]) /
        Math.log(before.quantiles["0.9"] / before.quantiles["0.1"])
      const factor = (0.3 * Math.pow(own.scale / 0.3, 0.5)) / own.scale
      expect(ratio).toBeCloseTo(factor, 6)
      // The centre is the same; the window's median residual about it is in units of the (tempered) scale too.
      expect(after.center).toBeCloseTo(before.center, 9)
      expect(Math.log(after.quantiles["0.5"]) - after.center)
        .toBeCloseTo((Math.log(before.quantiles["0.5"]) - before.center) * factor, 4)
      compared++
    }
    expect(compared).toBeGreaterThan(50)
  }, FITTING_TIMEOUT)
})
