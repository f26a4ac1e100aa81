// npm run bench:learner [-- rows…] — the boosted-trees learner (src/scoring/learner) on synthetic data:
// fit time, prediction time per row and memory, at 200k and 1M rows × 12 features (300 trees, depth 6).
// Squared loss at every size, and the 0.9 quantile at the first size (its leaf refit costs a little more).
// Wall and CPU time are both printed: on a shared machine the CPU time is the fairer figure. Each measurement
// runs in a process of its own, so that its peak resident memory is its own.
import { execFileSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import { fitGbt, type GbtLoss } from "../src/scoring/learner/gbt.js"

const featureCount = 12

/** A fixed, seeded data set: a nonlinear target, noise, a categorical code and 10% missing values in one feature. */
const syntheticData = (rowCount: number) => {
  let state = 12345
  const random = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0
    return state / 4294967296
  }
  const rows = new Float64Array(rowCount * featureCount)
  const target = new Float64Array(rowCount)
  for (let row = 0; row < rowCount; row++) {
    const base = row * featureCount
    for (let feature = 0; feature < featureCount; feature++) rows[base + feature] = random()
    rows[base + 3] = Math.floor(random() * 20) // a categorical code
    const missing = random() < 0.1
    if (missing) rows[base + 4] = NaN
    target[row] = rows[base]! * rows[base + 1]! * 4 + Math.sin(rows[base + 2]! * 6) + (rows[base + 3]! % 5) * 0.3
      + (missing ? 1 : rows[base + 4]!) + rows[base + 5]! ** 2 + (random() - 0.5) * (0.5 + rows[base]!)
  }
  return { rows, target }
}

const megabytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`

const measure = (rowCount: number, loss: GbtLoss) => {
  const { rows, target } = syntheticData(rowCount)
  const dataRss = process.memoryUsage().rss
  const fitStarted = performance.now()
  const fitCpuStarted = process.cpuUsage()
  const model = fitGbt(rows, target, { trees: 300, maxDepth: 6, loss })
  const fitCpu = process.cpuUsage(fitCpuStarted)
  const fitSeconds = (performance.now() - fitStarted) / 1000
  const fitCpuSeconds = (fitCpu.user + fitCpu.system) / 1e6
  const peakRss = process.resourceUsage().maxRSS * 1024

  const predictRows = Math.min(rowCount, 50_000)
  const row = new Float64Array(featureCount)
  let checksum = 0
  const predictStarted = performance.now()
  const predictCpuStarted = process.cpuUsage()
  for (let index = 0; index < predictRows; index++) {
    row.set(rows.subarray(index * featureCount, (index + 1) * featureCount))
    checksum += model.predict(row)
  }
  const predictCpu = process.cpuUsage(predictCpuStarted)
  if (!Number.isFinite(checksum)) throw new Error("bench:learner: a prediction is not a number")
  const microsecondsPerRow = ((performance.now() - predictStarted) * 1000) / predictRows
  const cpuMicrosecondsPerRow = (predictCpu.user + predictCpu.system) / predictRows
  const manyStarted = performance.now()
  const predictions = model.predictMany(rows)
  const manyMicroseconds = ((performance.now() - manyStarted) * 1000) / rowCount

  let squaredError = 0
  for (let index = 0; index < rowCount; index++) squaredError += (predictions[index]! - target[index]!) ** 2
  const modelBytes = JSON.stringify(model).length
  console.log(
    [
      `${(typeof loss === "string" ? loss : `quantile ${loss.quantile}`).padEnd(13)} ${
        String(rowCount).padStart(8)
      } rows`,
      `fit ${fitSeconds.toFixed(2).padStart(6)} s (cpu ${fitCpuSeconds.toFixed(2)} s)`,
      `predict ${microsecondsPerRow.toFixed(2)} µs/row (cpu ${cpuMicrosecondsPerRow.toFixed(2)}; predictMany ${
        manyMicroseconds.toFixed(2)
      })`,
      `peak rss ${megabytes(peakRss)} (fit +${megabytes(peakRss - dataRss)} over the data)`,
      `model ${(modelBytes / 1024).toFixed(0)} kB json, ${model.nodeFeature.length} nodes`,
      `train rmse ${Math.sqrt(squaredError / rowCount).toFixed(3)}`
    ].join("  ")
  )
}

const script = fileURLToPath(import.meta.url)
if (process.argv[2] === "--one") {
  const loss = process.argv[4] === "squared" ? "squared" : { quantile: Number(process.argv[4]) }
  measure(Number(process.argv[3]), loss)
} else {
  const sizes = process.argv.slice(2).map(Number).filter((size) => size > 0)
  console.log(`bench:learner — node ${process.version}, 300 trees, depth 6, ${featureCount} features, one core`)
  for (const [index, rowCount] of (sizes.length > 0 ? sizes : [200_000, 1_000_000]).entries()) {
    for (const loss of index === 0 ? ["squared", "0.9"] : ["squared"]) {
      const command = [...process.execArgv, script, "--one", String(rowCount), loss]
      execFileSync(process.execPath, command, { stdio: "inherit" })
    }
  }
}
