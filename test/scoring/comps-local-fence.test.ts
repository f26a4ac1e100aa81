/**
 * A recorded sale at a price none of its neighbours' explains (a distress or family sale the neighbourhood's
 * own outlier fences let through) is neither counted among a subject's comps nor listed: an investor's audit
 * of the NYC files found a $60,000 sale of a 706 sq ft house the first comp of its $400,000 neighbours
 * (`152-19 118th Ave`, Queens). The comps' own fences: Tukey's, 2 interquartile ranges of the comps' adjusted
 * values beyond their quartiles, among five or more comps.
 */
import { describe, expect, it } from "@effect/vitest"
import { generateDemoCounty } from "../../src/property/demo-county.js"
import { modelSales } from "../../src/scoring/engine.js"
import { fitModel } from "../../src/scoring/model.js"

describe("the comps' own fences", () => {
  const county = generateDemoCounty()
  const houses = modelSales({ parcels: county.parcels, sales: county.sales })
    .filter((sale) => sale.propertyType === "single_family")
    .slice(0, 4_000)
  const subject = { ...houses[0]!, parcelKey: "subject" }
  const asOf = houses.reduce((latest, sale) => (sale.date > latest ? sale.date : latest), "")
  const valued = (sales: typeof houses) => {
    const valuation = fitModel([...sales], {}).value(subject, asOf)
    if ("reason" in valuation) throw new Error(valuation.reason)
    return valuation
  }

  it("ANS-14: a neighbour's sale at a third of its worth is no comp, its fair sale is", () => {
    const fair = valued(houses)
    const first = fair.comps[0]!.sale
    expect(fair.comps.length).toBeGreaterThan(5)
    const cheap = houses.map((sale) => (sale === first ? { ...sale, price: Math.round(sale.price / 3) } : sale))
    const refitted = valued(cheap)
    const saleOf = (sale: { readonly parcelKey: string; readonly date: string }) => `${sale.parcelKey} ${sale.date}`
    expect(refitted.comps.map((comp) => saleOf(comp.sale))).not.toContain(saleOf(first))
    expect(refitted.comps.length).toBeGreaterThan(5)
    // The value moves little either way: the comps' weighted median stood against the one sale before.
    expect(Math.abs(Math.log(refitted.mean / fair.mean))).toBeLessThan(0.05)
  })
})
