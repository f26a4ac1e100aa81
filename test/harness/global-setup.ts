/**
 * Once per test run: make the PGlite template every database-backed test starts from without
 * TEST_DATABASE_URL (an empty cluster takes seconds to create; loading the template takes a fraction of
 * that), and the embedded database's tests start from with it too. The template is cached under
 * node_modules/.cache between runs on one machine.
 */
import { PGlite } from "@electric-sql/pglite"
import * as fs from "node:fs"
import * as path from "node:path"
import type { TestProject } from "vitest/node"

const cacheDir = path.resolve("node_modules/.cache/propscore")
const templatePath = path.join(cacheDir, "pglite-template.tar.gz")

declare module "vitest" {
  export interface ProvidedContext {
    pgliteTemplate: string
  }
}

export default async function setup(project: TestProject) {
  if (!fs.existsSync(templatePath)) {
    const db = await PGlite.create()
    const dump = await db.dumpDataDir("gzip")
    await db.close()
    fs.mkdirSync(cacheDir, { recursive: true })
    const partial = `${templatePath}.${process.pid}`
    fs.writeFileSync(partial, Buffer.from(await dump.arrayBuffer()))
    fs.renameSync(partial, templatePath)
  }
  project.provide("pgliteTemplate", templatePath)
}
