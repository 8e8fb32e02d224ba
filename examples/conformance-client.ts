/**
 * An MCP client built on `McpIntegrationSection`, for the conformance
 * suite's client scenarios (`@modelcontextprotocol/conformance`):
 *
 *   npx conformance client --command "tsx examples/conformance-client.ts" --scenario tools_call
 *
 * The suite passes the server URL as the last argument and the scenario in
 * `MCP_CONFORMANCE_SCENARIO`.
 */
import { McpIntegrationSection, Session, invokeTool, type ToolResult } from '../src/index.js';

const url = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? 'tools_call';
if (url === undefined || !/^https?:\/\//.test(url)) {
  console.error(`usage: conformance-client.ts <server-url> (got ${JSON.stringify(url)})`);
  process.exit(2);
}

/** Arguments for each tool the scenarios offer. */
const ARGUMENTS: Readonly<Record<string, Record<string, unknown>>> = {
  add_numbers: { a: 2, b: 3 },
  test_reconnection: {},
  test_client_elicitation_defaults: {},
};

const session = new Session();
const section = new McpIntegrationSection({
  servers: [
    { name: 'conformance', transport: { type: 'streamable-http', url }, timeoutMs: 20_000 },
  ],
  session,
  // Accept every elicitation without filling fields: the client applies the schema's defaults.
  elicitation: () => ({ action: 'accept', content: {} }),
});

let failed = false;
try {
  await section.connect();
  for (const tool of section.tools()) {
    const original = tool.origin.kind === 'mcp' ? tool.origin.originalName : tool.name;
    const result: ToolResult = await invokeTool(tool, ARGUMENTS[original] ?? {}, { session });
    console.log(`[${scenario}] ${original}: ${result.success ? 'ok' : 'error'}: ${result.message}`);
    if (!result.success) failed = true;
  }
} catch (error) {
  console.error(`[${scenario}] ${error instanceof Error ? error.message : String(error)}`);
  failed = true;
} finally {
  await section.disconnect();
}
process.exit(failed ? 1 : 0);
