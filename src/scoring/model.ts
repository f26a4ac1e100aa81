// The comparable-sales pricing model's public face: what the engine, the stack, the learner and the
// evaluation import. The model itself lives in src/scoring/comps/ (comps-model.ts composes it; each other
// file there holds one concern and says which in its header); docs/pricing-model.md describes the method.
export { parseUnit } from "./comps/comps-index.js"
export { fitModel, type FittedComps, Model } from "./comps/comps-model.js"
export { DEFAULT_OPTIONS, type ModelOptions } from "./comps/options.js"
export { weightedQuantiles } from "./comps/quantiles.js"
export {
  type Comp,
  type NoValue,
  type PropertyType,
  QUANTILE_LEVELS,
  type QuantileLevel,
  type Sale,
  type Subject,
  TYPE_CODE,
  type Valuation
} from "./comps/types.js"
