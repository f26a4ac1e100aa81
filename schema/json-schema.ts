/**
 * The wire schemas of `schema/` as plain JSON Schema: every `$ref` inlined (some agent hosts do not resolve
 * `$ref`/`$defs`), and the titles and descriptions Effect generates from its own filters ("an integer",
 * "between(0, 50)") dropped, so what is left is what `schema/` wrote for people and models. The MCP tool
 * schemas are these; the OpenAPI document is cleaned the same way.
 */
import { JSONSchema, type Schema } from "effect"

type Json = Record<string, unknown>

/** Descriptions and titles Effect writes from its built-in schemas and filters, never ours. */
export const isGeneratedText = (text: string): boolean =>
  /^(a |an |int$|between\(|greaterThan|lessThan|minLength|maxLength|minItems|maxItems|nonEmpty|trimmed|a string that will be trimmed)/
    .test(text) || /^[a-zA-Z]+\([^)]*\)$/.test(text)

/** `node` with `$ref`s resolved against `definitions` (siblings of a `$ref` win over the definition). */
export const inlineRefs = (node: unknown, definitions: Json, resolving: ReadonlyArray<string> = []): unknown => {
  if (Array.isArray(node)) return node.map((item) => inlineRefs(item, definitions, resolving))
  if (typeof node !== "object" || node === null) return node
  const { $ref, ...rest } = node as Json
  const inlinedRest = Object.fromEntries(
    Object.entries(rest).map(([key, value]) => [key, inlineRefs(value, definitions, resolving)])
  )
  if (typeof $ref !== "string") return inlinedRest
  const name = decodeURIComponent($ref.slice($ref.lastIndexOf("/") + 1))
  if (resolving.includes(name)) throw new Error(`A recursive schema cannot be inlined: ${name}`)
  const target = definitions[name]
  if (target === undefined) throw new Error(`No definition for ${$ref}`)
  const resolved = inlineRefs(target, definitions, [...resolving, name]) as Json
  return { ...resolved, ...inlinedRest }
}

/** Keywords whose values are instances (data), never schemas: nothing in them is rewritten. */
export const dataKeywords: ReadonlySet<string> = new Set(["examples", "example", "default", "const", "enum"])

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value)

/** Generated titles and descriptions removed, everywhere in `node` (never inside examples or constants). */
export const withoutGeneratedText = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(withoutGeneratedText)
  if (typeof node !== "object" || node === null) return node
  const entries = Object.entries(node as Json).flatMap(([key, value]): Array<[string, unknown]> => {
    if ((key === "title" || key === "description") && typeof value === "string" && isGeneratedText(value)) return []
    // Examples, defaults and constants are data, not schemas: kept exactly as written.
    if (dataKeywords.has(key)) return [[key, value]]
    // `properties` maps member names to schemas: its keys are names, never keywords.
    if (key === "properties" && isObject(value)) {
      return [[key, Object.fromEntries(Object.entries(value).map(([name, s]) => [name, withoutGeneratedText(s)]))]]
    }
    return [[key, withoutGeneratedText(value)]]
  })
  return Object.fromEntries(entries)
}

/** A schema of `schema/` as one self-contained JSON Schema object (draft 2020-12 keywords, no `$schema`). */
export const plainJsonSchema = (schema: Schema.Schema.All): Json => {
  const { $defs, $schema: _, ...root } = JSONSchema.make(schema as Schema.Schema.Any) as unknown as Json
  return withoutGeneratedText(inlineRefs(root, ($defs ?? {}) as Json)) as Json
}

/**
 * Every place in `node` where a schema describes a member without words of its own: the JSON Pointer of each
 * object member with no description (or only a generated one). For the tests and the OpenAPI checks.
 */
export const undescribedMembers = (node: unknown, at = ""): Array<string> => {
  if (Array.isArray(node)) return node.flatMap((item, i) => undescribedMembers(item, `${at}/${i}`))
  if (!isObject(node)) return []
  return Object.entries(node).flatMap(([key, value]) => {
    if (dataKeywords.has(key)) return []
    if (key !== "properties" || !isObject(value)) return undescribedMembers(value, `${at}/${key}`)
    return Object.entries(value).flatMap(([name, member]) => {
      const description = isObject(member) ? member.description : undefined
      const described = typeof description === "string" && description.trim() !== "" &&
        !isGeneratedText(description)
      const here = `${at}/properties/${name}`
      return [...(described ? [] : [here]), ...undescribedMembers(member, here)]
    })
  })
}
