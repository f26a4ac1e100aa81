/** The official MCP SDK clients of both protocol generations, connected to the test server with an API key. */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport as LegacyTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { Effect } from "effect"
import { baseUrl } from "./server.js"

export interface ToolResult {
  readonly isError?: boolean
  readonly structuredContent?: any
  readonly _meta?: Record<string, unknown>
  readonly content: ReadonlyArray<{ readonly type: string; readonly text?: string }>
}

export interface ListedTool {
  readonly name: string
  readonly title?: string
  readonly description?: string
  readonly inputSchema: any
  readonly outputSchema?: any
  readonly annotations?: Record<string, unknown>
}

/** What the tests use of either client. */
export interface McpClient {
  listTools: () => Promise<{ tools: ReadonlyArray<ListedTool> }>
  callTool: (params: { name: string; arguments: Record<string, unknown> }) => Promise<ToolResult>
  listResources: () => Promise<{ resources: ReadonlyArray<{ uri: string; name: string }> }>
  readResource: (params: { uri: string }) => Promise<{ contents: ReadonlyArray<{ uri: string; text?: string }> }>
  getInstructions: () => string | undefined
  getServerCapabilities: () => any
  close: () => Promise<void>
}

/** An SDK client of either protocol generation (2026-07-28 pinned, or the 1.x client's 2025 revision). */
export const connect = (generation: "2026-07-28" | "2025", apiKey: string) =>
  Effect.gen(function*() {
    const url = new URL(`${yield* baseUrl}/mcp`)
    const requestInit = { headers: { authorization: `Bearer ${apiKey}` } }
    if (generation === "2026-07-28") {
      const client = new Client({ name: "propscore-test", version: "1.0.0" }, {
        versionNegotiation: { mode: { pin: "2026-07-28" } }
      })
      yield* Effect.promise(() => client.connect(new StreamableHTTPClientTransport(url, { requestInit })))
      return client as unknown as McpClient
    }
    const client = new LegacyClient({ name: "propscore-test-2025", version: "1.0.0" })
    yield* Effect.promise(() => client.connect(new LegacyTransport(url, { requestInit })))
    return client as unknown as McpClient
  })
