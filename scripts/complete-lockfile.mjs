// npm leaves out of package-lock.json the platform-specific optional packages it cannot fetch (npm/cli#4828;
// this workplace's registry serves only the ones for this machine), and `npm ci` then refuses the lock file
// as out of sync. This adds an entry, with the platform it belongs to, for every optional dependency the
// lock names but lacks, so `npm ci` accepts the lock and skips those packages on a machine they do not fit.
// Run it after any `npm install` that changes package-lock.json: `node scripts/complete-lockfile.mjs`.
import { readFileSync, writeFileSync } from "node:fs"

const path = new URL("../package-lock.json", import.meta.url)
const lock = JSON.parse(readFileSync(path, "utf8"))

const osNames = ["android", "darwin", "freebsd", "linux", "openbsd", "openharmony", "netbsd", "sunos", "aix", "win32"]
const cpuNames = ["arm64", "arm", "x64", "ia32", "loong64", "ppc64", "riscv64", "s390x", "mips64el"]

const platformOf = (name) => {
  const tokens = name.split("/").pop().split("-")
  const os = tokens.find((token) => osNames.includes(token))
  const cpu = tokens.find((token) => cpuNames.includes(token))
  const libc = tokens.some((token) => token.startsWith("musl")) ?
    "musl"
    : tokens.some((token) => token.startsWith("gnu")) && os === "linux" ?
    "glibc"
    : undefined
  return { os, cpu, libc }
}

let added = 0
for (const [location, entry] of Object.entries(lock.packages)) {
  for (const [name, range] of Object.entries(entry.optionalDependencies ?? {})) {
    const target = `node_modules/${name}`
    if (lock.packages[target] || lock.packages[`${location}/${target}`]) continue
    const { cpu, libc, os } = platformOf(name)
    if (!os || !cpu || !/^\d+\.\d+\.\d+/.test(range)) {
      console.error(`left out ${name}@${range}: its platform or exact version is not evident from its name`)
      continue
    }
    lock.packages[target] = {
      version: range,
      cpu: [cpu],
      ...(entry.dev ? { dev: true } : {}),
      ...(libc ? { libc: [libc] } : {}),
      optional: true,
      os: [os]
    }
    added++
  }
}

lock.packages = Object.fromEntries(
  Object.entries(lock.packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a < b ? -1 : a > b ? 1 : 0))
)
writeFileSync(path, JSON.stringify(lock, null, 2) + "\n")
console.log(`added ${added} platform entries to package-lock.json`)
