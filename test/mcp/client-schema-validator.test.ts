/**
 * The JSON Schema validator the SDK's client is given: made on first use,
 * an interpreter (no code from a server's schema), and what every
 * connection's client gets instead of the SDK's Ajv default.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/cfworker';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { clientSchemaValidator } from '../../src/mcp/client-schema-validator.js';
import { SecretRedactor } from '../../src/mcp/redact.js';
import { McpServerConnection } from '../../src/mcp/server-connection.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('clientSchemaValidator', () => {
  it('makes its engine when a schema is first checked, once', () => {
    let made = 0;
    const validator = clientSchemaValidator(() => {
      made += 1;
      return new CfWorkerJsonSchemaValidator();
    });
    expect(made).toBe(0);
    const check = validator.getValidator<{ n: number }>({
      type: 'object',
      properties: { n: { type: 'number' } },
      required: ['n'],
    });
    validator.getValidator({ type: 'string' });
    expect(made).toBe(1);
    expect(check({ n: 1 })).toEqual({ valid: true, data: { n: 1 }, errorMessage: undefined });
    const refused = check({ n: 'one' });
    expect(refused.valid).toBe(false);
    expect(refused.errorMessage).toContain('/n');
  });

  it('interprets a schema: no code is made from it', () => {
    // Ajv, the SDK's default, compiles each schema with `new Function`.
    const makeFunction = vi.spyOn(globalThis, 'Function');
    const check = clientSchemaValidator().getValidator({
      type: 'object',
      properties: { "a'+(globalThis.__ran=1)+'": { type: 'string', pattern: '^x$' } },
    });
    expect(check({ "a'+(globalThis.__ran=1)+'": 'y' }).valid).toBe(false);
    expect(makeFunction).not.toHaveBeenCalled();
  });

  it("is what a connection's client gets, not the SDK's Ajv instance built per client", async () => {
    const clients: Client[] = [];
    const connect = Client.prototype.connect;
    vi.spyOn(Client.prototype, 'connect').mockImplementation(function (this: Client, ...args) {
      clients.push(this);
      return connect.apply(this, args);
    });
    const server = new McpServer({ name: 'unit', version: '1.0.0' });
    server.registerTool('echo', { description: 'echo' }, () => ({ content: [] }));
    const connection = new McpServerConnection({
      session: {},
      serverName: 'srv',
      endpoint: 'normal',
      transport: { type: 'in-memory', server },
      timeoutMs: 5_000,
      redactor: new SecretRedactor([]),
    });
    try {
      await connection.connect();
    } finally {
      await connection.close();
    }
    expect(clients).toHaveLength(1);
    const given = (clients[0] as unknown as { _jsonSchemaValidator: unknown })._jsonSchemaValidator;
    expect(given).toBeDefined();
    expect(given).not.toBeInstanceOf(AjvJsonSchemaValidator);
  });
});
