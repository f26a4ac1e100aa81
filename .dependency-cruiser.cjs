/**
 * The never-rules of the architecture (../shared/DESIGN.md), checked by `npm test` (`npm run depcruise`).
 * schema/ is the wire contract, a pure module; layers/ implement the service Tags of src/services; src/
 * holds the operations (which decide), the front doors (which translate), the pure valuation arithmetic and
 * the scoring engine. Only the composition roots put Layers together.
 */
/** @type {import("dependency-cruiser").IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "schema-is-the-contract",
      comment: "schema/ is shared by REST, MCP, OpenAPI and the tests: it depends on nothing of the service.",
      severity: "error",
      from: { path: "^schema/" },
      to: { path: "^(src|layers|test|bench|scripts)/" }
    },
    {
      name: "operations-do-not-translate",
      comment: "Operations decide; the HTTP and MCP front doors translate. An operation never reaches into them.",
      severity: "error",
      from: { path: "^src/(operations|services|valuation|scoring|property|domain|oauth)/" },
      to: { path: "^src/(http|mcp|cli|bin)/" }
    },
    {
      name: "mcp-is-a-sibling-of-http",
      comment: "The MCP tools re-enter the operations; what they share with REST lives in schema/ or src/operations.",
      severity: "error",
      from: { path: "^src/mcp/" },
      to: { path: "^src/(http|cli)/" }
    },
    {
      name: "valuation-is-pure",
      comment: "The valuation arithmetic is plain functions over plain data: no services, no storage, no I/O " +
        "(the types of the data it reads are fine).",
      severity: "error",
      from: { path: "^src/valuation/" },
      to: {
        path: "^(src/(services|operations|db|http|mcp|cli|scoring)|layers)/|^node:(fs|net|http|child_process)$",
        dependencyTypesNot: ["type-only"]
      }
    },
    {
      name: "services-are-interfaces",
      comment: "src/services holds the Tags and their types; implementations live in layers/.",
      severity: "error",
      from: { path: "^src/services/" },
      to: { path: "^(layers|src/(operations|db))/" }
    },
    {
      name: "layers-only-from-composition-roots",
      comment: "Only the composition roots (src/app.ts, src/db/database.ts, src/cli/) choose implementations.",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/(app\\.ts|db/database\\.ts|cli/)" },
      to: { path: "^layers/" }
    },
    {
      name: "layers-implement-services",
      comment: "A Layer implements a service; it never calls an operation or a front door.",
      severity: "error",
      from: { path: "^layers/" },
      to: { path: "^src/(operations|http|mcp|cli|bin)/" }
    },
    {
      name: "no-test-code-in-the-service",
      comment: "Fakes and harnesses are for tests only.",
      severity: "error",
      from: { path: "^(src|schema|layers)/" },
      to: { path: "^(test|bench)/" }
    },
    {
      name: "no-circular",
      comment: "A cycle between modules makes the layering a matter of memory.",
      severity: "error",
      from: { path: "^(src|schema|layers)/" },
      to: { circular: true }
    },
    {
      name: "not-to-unresolvable",
      severity: "error",
      from: {},
      to: { couldNotResolve: true }
    }
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".js", ".mjs", ".cjs", ".json"]
    }
  }
}
