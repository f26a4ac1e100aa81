/** Kept models in memory, for tests: `kept` holds what was kept last, and every `keep` is counted. */
import { Effect, Layer, Option, Ref } from "effect"
import { type KeptEngineModels, KeptModels } from "../../src/services/kept-models.js"

export interface KeptModelsMemoryState {
  readonly kept: Option.Option<KeptEngineModels>
  readonly keeps: number
}

export const keptModelsMemory = (state: Ref.Ref<KeptModelsMemoryState>) =>
  Layer.succeed(
    KeptModels,
    KeptModels.of({
      read: Effect.map(Ref.get(state), (now) => now.kept),
      keep: (models) =>
        Ref.update(state, (now) => ({
          kept: Option.some({
            ...models,
            data: models.data ?? Option.getOrUndefined(now.kept)?.data
          }),
          keeps: now.keeps + 1
        }))
    })
  )
