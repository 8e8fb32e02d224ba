/**
 * A server's own secret, sent back by the server on every path its text
 * takes into the client (test/fixtures/hostile/leaky-server.mjs, a real
 * stdio server given the secret in `env`), appears nowhere the library
 * reports server text: not in errors, results, events, the rendered
 * prompt or the tool definitions — not whole, and not a piece of it left
 * by a cut or an escape made before masking. (A result's value is the
 * tool's data, handed to the caller as the server sent it, and masked in
 * the `ToolInvoked` that records it; an error's message is text, and masked.)
 */
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  invokeTool,
  McpIntegrationSection,
  McpToolProgress,
  Prompt,
  PromptTemplate,
  Session,
} from '../../src/index.js';

const SERVER = fileURLToPath(new URL('../fixtures/hostile/leaky-server.mjs', import.meta.url));

const SECRETS = {
  token: `ghp_${'Z'.repeat(60)}`,
  // A key with newlines and quotes: JSON escapes it, so an escaped copy must be masked too.
  key: `-----BEGIN PRIVATE KEY-----\nMIIEv${'Q'.repeat(60)}\n"end"\n-----END PRIVATE KEY-----`,
};

/** The first run of 12 characters of `secret` (or of its JSON-escaped form) found in `text`. */
function pieceIn(text: string, secret: string): string | undefined {
  for (const form of [secret, JSON.stringify(secret).slice(1, -1)]) {
    for (let start = 0; start + 12 <= form.length; start++) {
      const piece = form.slice(start, start + 12);
      // Only pieces of the secret's own body: its PEM frame is not secret.
      if (/[ZQ]{6}/.test(piece) && text.includes(piece)) return piece;
    }
  }
  return undefined;
}

/** `text` with its runs of percent-escapes decoded (a run that is not UTF-8 kept as it is). */
function percentDecoded(text: string): string {
  return text.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });
}

/** Everything the library reported while `leaky-server.mjs` ran in `mode` with `secret`. */
async function reported(
  secret: string,
  mode: 'serve' | 'crash' | 'crash-one-line' | 'bad-listing' | 'secret-schema',
  options: {
    readonly padding?: number;
    readonly maxResultChars?: number;
    readonly args?: Record<string, unknown>;
  } = {},
): Promise<Record<string, string>> {
  const session = new Session();
  const events: string[] = [];
  session.bus.subscribeAll((event) => {
    // ToolInvoked whole: its result's value masked too (the caller's stays the server's data).
    events.push(`${event.constructor.name} ${JSON.stringify(event)}`);
  });
  session.bus.subscribe(McpToolProgress, () => undefined);
  const section = new McpIntegrationSection({
    servers: [
      {
        name: 'leaky',
        transport: {
          type: 'stdio',
          command: process.execPath,
          args: [SERVER, mode, String(options.padding ?? 0)],
        },
        env: { API_TOKEN: secret },
        ...(options.maxResultChars === undefined ? {} : { maxResultChars: options.maxResultChars }),
      },
    ],
    session,
    onConnectError: 'report',
    serverLogLevel: 'debug',
  });
  const out: Record<string, string> = {};
  try {
    await section.connect();
    const results: string[] = [];
    for (const tool of section.tools()) {
      const result = await invokeTool(tool, options.args ?? {}, { session });
      results.push(`${tool.name}: ${result.message}`);
    }
    out.results = results.join('\n');
    out.unavailable = JSON.stringify(section.unavailableServers);
    out.tools = JSON.stringify(
      section
        .tools()
        .map(({ name, description, annotations }) => ({ name, description, annotations })),
    );
    const rendered = new Prompt(
      PromptTemplate.create({ ns: 'test', key: 'secrets', sections: [section] }),
    ).render({ session });
    out.prompt = rendered.text;
    out.definitions = JSON.stringify(rendered.toolDefinitions());
  } finally {
    await section.disconnect();
  }
  out.events = events.join('\n');
  return out;
}

describe.each(Object.entries(SECRETS))(
  'a server sending back its own secret (%s)',
  (_kind, secret) => {
    it('on a crash, in the last 2,000 characters of its stderr', async () => {
      const out = await reported(secret, 'crash');
      expect(out.unavailable).toContain('exiting');
      for (const [where, text] of Object.entries(out)) {
        expect(pieceIn(text, secret), where).toBeUndefined();
      }
    });

    it('on a crash, percent-encoded in one stderr line longer than the tail kept', async () => {
      const out = await reported(secret, 'crash-one-line');
      for (const [where, text] of Object.entries(out)) {
        expect(pieceIn(percentDecoded(text), secret), where).toBeUndefined();
      }
      expect(out.unavailable).toContain('its last line is longer than 2000 characters, not shown');
    });

    it('in a listing that breaks the MCP schema, where its refusal would quote it', async () => {
      const out = await reported(secret, 'bad-listing');
      expect(JSON.parse(out.unavailable!)).toEqual([
        {
          name: 'leaky',
          reason: `cannot connect: tools/list sent tools[0] ("search").inputSchema.type = a string of ${secret.length} characters; expected "object"`,
        },
      ]);
      for (const [where, text] of Object.entries(out)) {
        expect(pieceIn(text, secret), where).toBeUndefined();
      }
    });

    it('in its tools, markers, outputs, logs, progress and errors', async () => {
      const out = await reported(secret, 'serve', { padding: 70, maxResultChars: 100 });
      expect(out.results).toContain('leaky_typed');
      expect(out.events).toContain('McpServerLog');
      expect(out.events, out.results).toContain('McpToolProgress');
      expect(out.events).toContain('PrivateDataMarkerMalformed');
      for (const [where, text] of Object.entries(out)) {
        expect(pieceIn(text, secret), where).toBeUndefined();
      }
    });

    it('in schemas whose validators quote it', async () => {
      const out = await reported(secret, 'secret-schema', { args: { a: 'x' } });
      // A long value of the schema's is named by its length, a short one quoted and masked.
      expect(out.results).toMatch(
        secret.length > 80
          ? /leaky_enum: .*the schema's string of \d+ characters/
          : /leaky_enum: .*\*\*\*/,
      );
      expect(out.results).toMatch(/leaky_pattern: .*\*\*\*/);
      expect(out.results).toMatch(/leaky_dangling: .*input schema cannot be used.*\*\*\*/);
      // A schema is data the model is given as sent (masking it would change
      // what it accepts): the secret stays in the definitions' schemas only.
      const definitions = JSON.parse(out.definitions!) as Record<string, unknown>[];
      out.definitions = JSON.stringify(
        definitions.map(({ inputSchema: _schema, ...rest }) => rest),
      );
      for (const [where, text] of Object.entries(out)) {
        expect(pieceIn(text, secret), where).toBeUndefined();
      }
    });

    it('in an error result that is not cut', async () => {
      const out = await reported(secret, 'serve');
      expect(out.results).toMatch(/leaky_fails: .*\*\*\*/);
      for (const [where, text] of Object.entries(out)) {
        expect(pieceIn(text, secret), where).toBeUndefined();
      }
    });
  },
);

describe('env values that are ordinary words', () => {
  it("mask text only: a tool's schema, its arguments and an error's shape keep their meaning", async () => {
    const section = new McpIntegrationSection({
      servers: [
        {
          name: 'leaky',
          transport: { type: 'stdio', command: process.execPath, args: [SERVER, 'serve', '0'] },
          env: { API_TOKEN: SECRETS.token, LOG_LEVEL: 'info', FORMAT: 'text' },
        },
      ],
      session: new Session(),
    });
    try {
      await section.connect();
      const session = section.session;
      const levels = section.tools().find((tool) => tool.name === 'leaky_levels')!;
      expect(JSON.stringify(levels.inputSchema)).toContain('"enum":["debug","info"]');
      const accepted = await invokeTool(levels, { level: 'info', text: 'info-1' }, { session });
      expect(accepted.success).toBe(true);
      const refused = await invokeTool(levels, { level: '***', text: 'x' }, { session });
      expect(refused.success).toBe(false);
      const diskFull = section.tools().find((tool) => tool.name === 'leaky_disk_full')!;
      const failed = await invokeTool(diskFull, {}, { session });
      expect([failed.success, failed.message]).toEqual([false, '***: disk full']);
      // The message is masked text; the value is the tool's data, as sent.
      expect(failed.value).toMatchObject({ content: [{ type: 'text', text: 'text: disk full' }] });
    } finally {
      await section.disconnect();
    }
  });
});
