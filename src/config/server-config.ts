/**
 * The one description of an MCP server config: a zod schema whose
 * `.describe()` texts are its documentation and whose types are inferred
 * from it. Every front-end (the section, `.mcp.json`, `config.yaml`, the
 * CLI) ends in {@link parseServerConfigs}, so a rule lives in one place.
 *
 * Each check carries the sentence its error ends with ("must be …"); values
 * that may be secrets (env, headers, URLs) are never quoted in it.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { DATA_SENSITIVITY_LEVELS, type DataSensitivity } from '../core/sensitivity.js';
import { ownRecord, quote, rule } from './schema-helpers.js';

/** Server names: `^[a-z][a-z0-9_-]{0,31}$`. */
export const SERVER_NAME_PATTERN = /^[a-z][a-z0-9_-]{0,31}$/;

/** Tool prefixes follow the tool-name alphabet. */
export const TOOL_PREFIX_PATTERN = /^[a-z0-9_-]{1,32}$/;

/** Default per-request timeout. */
export const DEFAULT_TIMEOUT_MS = 30_000;

/** Host patterns of `isolation.network.allow`. */
const ALLOWED_HOST_PATTERN = /^(\*\.)?[A-Za-z0-9.:[\]-]+$/;

const TRANSPORT_TYPES = ['stdio', 'sse', 'streamable-http', 'in-memory'] as const;

const sensitivity = z.enum(DATA_SENSITIVITY_LEVELS as [DataSensitivity, ...DataSensitivity[]], {
  error: rule((input) => `${quote(input)} must be public, internal, confidential or secret`),
});

const toolPermission = z.enum(['read', 'write', 'connect'], {
  error: rule((input) => `${quote(input)} must be "read", "write" or "connect"`),
});

const nonEmptyString = z
  .string({ error: rule('must be a non-empty string') })
  .min(1, { error: rule('must be a non-empty string') });

const stringList = (what: string) =>
  z.array(z.string({ error: rule(`must be a string (${what})`) }), {
    error: rule(`must be an array of ${what} (strings)`),
  });

/** A map of names to strings whose values may be secrets: never quoted. */
const secretMap = (what: string) =>
  ownRecord(z.string({ error: rule('must be a string') }), `must map ${what} to string values`);

/**
 * A child's environment: names that a process environment can hold (not
 * empty, no `=`, no NUL: `A=B` would reach the child as another variable).
 * A bad name is not quoted: what follows its `=` may be a value pasted in.
 */
const environment = secretMap('variable names').check((ctx) => {
  Object.keys(ctx.value).forEach((name, index) => {
    if (name !== '' && !/[=\0]/.test(name)) return;
    ctx.issues.push({
      code: 'custom',
      input: ctx.value,
      message: `variable name ${String(index + 1)} (of ${String(name.length)} characters, not quoted) must be non-empty, without "=" or a NUL character`,
    });
  });
});

const positiveMilliseconds = z
  .number({ error: rule((input) => `${quote(input)} must be a positive number of milliseconds`) })
  .refine((value) => Number.isFinite(value) && value > 0, {
    error: rule((input) => `${quote(input)} must be a positive number of milliseconds`),
  });

const httpUrl = z
  .string({ error: rule((input) => `must be an absolute http(s) URL, got ${kind(input)}`) })
  .check((ctx) => {
    let url: URL;
    try {
      url = new URL(ctx.value);
    } catch {
      // Never quoted: a URL may carry a token in its path, credentials or query.
      ctx.issues.push(
        urlIssue(ctx.value, 'must be an absolute http(s) URL (e.g. http://localhost:8000/mcp)'),
      );
      return;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      ctx.issues.push(urlIssue(ctx.value, `must use http: or https:, got "${url.protocol}"`));
    }
  });

/** Start a server as a child process and speak MCP over its stdin/stdout. */
export const stdioTransportSchema = z
  .strictObject({
    type: z.literal('stdio'),
    command: nonEmptyString.describe('The program to start, e.g. `npx` or `node`.'),
    args: stringList('arguments').readonly().optional().describe('Its arguments.'),
    cwd: z
      .string({ error: rule('must be a string') })
      .optional()
      .describe('Its working directory (and, sandboxed, its only writable place).'),
  })
  .readonly()
  .describe('Start a server as a child process and speak MCP over its stdin/stdout.');

const headers = secretMap('header names')
  .optional()
  .describe('Sent on every request, e.g. `Authorization`. Never logged or published.');

/** The legacy HTTP+SSE transport (deprecated by the MCP spec, still common). */
export const sseTransportSchema = z
  .strictObject({
    type: z.literal('sse'),
    url: httpUrl.describe('The SSE endpoint.'),
    headers,
  })
  .readonly()
  .describe('The legacy HTTP+SSE transport (deprecated by the MCP spec, still common).');

/** Streamable HTTP, the recommended remote transport. */
export const streamableHttpTransportSchema = z
  .strictObject({
    type: z.literal('streamable-http'),
    url: httpUrl.describe('The MCP endpoint, e.g. `https://example.com/mcp`.'),
    headers,
    sseFallback: z
      .boolean({ error: rule((input) => `${quote(input)} must be true or false`) })
      .optional()
      .describe('Fall back to SSE when the first POST is answered with 404 or 405. Default true.'),
  })
  .readonly()
  .describe('Streamable HTTP, the recommended remote transport.');

/** An SDK server in this process, not yet connected (tests, embedding). */
export const inMemoryTransportSchema = z
  .strictObject({
    type: z.literal('in-memory'),
    server: z
      .custom<McpServer | Server>(
        (value) =>
          typeof value === 'object' &&
          value !== null &&
          typeof (value as { connect?: unknown }).connect === 'function',
        { error: rule('must be an SDK McpServer or Server that is not yet connected') },
      )
      .describe('An SDK `McpServer` or `Server` that is not yet connected.'),
  })
  .readonly()
  .describe('An SDK server in this process, not yet connected (tests, embedding).');

/** How to reach a server; discriminated by `type`. */
export const transportSchema = z.discriminatedUnion(
  'type',
  [
    stdioTransportSchema,
    sseTransportSchema,
    streamableHttpTransportSchema,
    inMemoryTransportSchema,
  ],
  {
    error: rule((input) =>
      typeof input === 'object' && input !== null && !Array.isArray(input)
        ? `${quote((input as { type?: unknown }).type)} must be one of ${TRANSPORT_TYPES.join(', ')}`
        : `must be an object with a "type" (${TRANSPORT_TYPES.join(', ')}), got ${kind(input)}`,
    ),
  },
);

/** Where a server's calls go once the session holds private data. */
export const isolationSchema = z
  .strictObject(
    {
      transport: transportSchema
        .optional()
        .describe(
          'The isolated deployment of the same server (no network). Without it, a stdio server is restarted in a sandbox.',
        ),
      at: sensitivity
        .optional()
        .describe('The sensitivity at which calls switch to isolation. Default `confidential`.'),
      unshareFallback: z
        .boolean({ error: rule((input) => `${quote(input)} must be true or false`) })
        .optional()
        .describe(
          'Where bubblewrap cannot run, accept `unshare --net` (network only; host files, sockets and, as root, namespaces stay reachable). Default false: calls fail closed there.',
        ),
      readOnlyPaths: z
        .array(z.string().min(1), {
          error: rule('must be an array of host paths (non-empty strings)'),
        })
        .readonly()
        .optional()
        .describe('More host paths a sandboxed stdio server may read.'),
      network: z
        .strictObject(
          {
            allow: z
              .array(
                z.string().regex(ALLOWED_HOST_PATTERN, {
                  error: rule(
                    (input) =>
                      `${quote(input)} must be a host name such as "api.example.com", "*.example.com" or "127.0.0.1:8080"`,
                  ),
                }),
                { error: rule('must be an array of host names') },
              )
              .readonly()
              .describe(
                'Hosts reachable through the egress proxy (`api.example.com`, `*.example.com`, `host:port`).',
              ),
          },
          { error: rule('must be { allow: [...] } with host names') },
        )
        .readonly()
        .optional()
        .describe(
          'The network a sandboxed stdio server keeps at `confidential`, through a proxy outside the sandbox; at `secret` nothing. Not for an isolated `transport`.',
        ),
    },
    { error: rule((input) => `must be an object, got ${kind(input)}`) },
  )
  .readonly();

/**
 * The keys an object at `path` inside a server config may have (for "did
 * you mean" on an unknown key); `server` is the config as written.
 */
export function knownKeysAt(path: readonly PropertyKey[], server: unknown): readonly string[] {
  const at = path.join('.');
  if (at === '') return Object.keys(serverFields.shape);
  if (at === 'isolation') return Object.keys(isolationSchema.unwrap().shape);
  if (at === 'isolation.network') return ['allow'];
  if (at !== 'transport' && at !== 'isolation.transport') return [];
  let transport: unknown = server;
  for (const key of path)
    transport = (transport as Record<PropertyKey, unknown> | undefined)?.[key];
  const type = (transport as { type?: unknown } | undefined)?.type;
  const option = transportSchema.options.find(
    (candidate) => candidate.unwrap().shape.type.value === type,
  );
  return option === undefined ? ['type'] : Object.keys(option.unwrap().shape);
}

/** The fields of one server, before the cross-field rules. */
const serverFields = z.strictObject(
  {
    name: z
      .string({
        error: rule((input) => `${quote(input)} must match ${SERVER_NAME_PATTERN.source}`),
      })
      .regex(SERVER_NAME_PATTERN, {
        error: rule((input) => `${quote(input)} must match ${SERVER_NAME_PATTERN.source}`),
      })
      .describe('Identifier, `^[a-z][a-z0-9_-]{0,31}$`; unique in a section.'),
    transport: transportSchema.describe('How to reach the server.'),
    toolPrefix: z
      .string({
        error: rule((input) => `${quote(input)} must match ${TOOL_PREFIX_PATTERN.source}`),
      })
      .regex(TOOL_PREFIX_PATTERN, {
        error: rule((input) => `${quote(input)} must match ${TOOL_PREFIX_PATTERN.source}`),
      })
      .optional()
      .describe('Prefix of bridged tool names. Default: the name.'),
    enabledTools: stringList('tool names')
      .readonly()
      .optional()
      .describe('Original tool names to keep; applied before `disabledTools`.'),
    disabledTools: stringList('tool names')
      .readonly()
      .optional()
      .describe('Original tool names to drop; applied after `enabledTools`.'),
    timeoutMs: positiveMilliseconds
      .optional()
      .describe(
        'Timeout of each request (`tools/call`, `tools/list`, ping). The handshake waits at least 10 s. Default 30000.',
      ),
    maxTotalTimeoutMs: positiveMilliseconds
      .optional()
      .describe(
        'Setting it asks every call for progress: each report restarts the timeout, up to this much in all. Without it, progress is asked for only while something observes McpToolProgress (then the cap is 10 × timeoutMs).',
      ),
    maxResultChars: z
      .number({
        error: rule((input) => `${quote(input)} must be a positive whole number of characters`),
      })
      .int({
        error: rule((input) => `${quote(input)} must be a positive whole number of characters`),
      })
      .positive({
        error: rule((input) => `${quote(input)} must be a positive whole number of characters`),
      })
      .optional()
      .describe(
        'The most characters of content one tool result may bring into the session. Default 1000000.',
      ),
    env: environment
      .optional()
      .describe(
        "Environment of a stdio child, on top of the SDK's safe default (HOME, LOGNAME, PATH, SHELL, TERM, USER). Never logged.",
      ),
    secrets: z
      .array(z.string({ error: rule('must be a string') }), {
        error: rule('must be an array of strings'),
      })
      .readonly()
      .optional()
      .describe(
        "More values masked wherever this server's text goes (errors, events, the prompt), as its env values are: a token passed in `args`, in a URL's path or in part of an env or header value. The config files fill it with every value `${VAR}` expansion took from the environment for `args`, `env`, headers, a bearer token or a URL's path (not a command, a cwd, a host or a port). Never logged.",
      ),
    inheritEnv: z
      .boolean({ error: rule((input) => `${quote(input)} must be true or false`) })
      .optional()
      .describe(
        'Give a stdio child the whole parent environment instead of the safe default, plus `env`. Never inside a sandbox. Default false.',
      ),
    isolation: isolationSchema
      .optional()
      .describe("Where the server's calls go once the session holds private data."),
    permissions: ownRecord(
      z
        .array(toolPermission, { error: rule('must be a list of "read", "write", "connect"') })
        .readonly(),
      'must map tool names to permission lists',
    )
      .optional()
      .describe(
        'Permissions by original tool name; unlisted tools infer `connect` from `openWorldHint`.',
      ),
    sensitiveTools: ownRecord(sensitivity, 'must map tool names to sensitivity levels')
      .optional()
      .describe('A successful call of one of these tools raises the session to the given level.'),
  },
  { error: rule((input) => `must be an object, got ${kind(input)}`) },
);

/** One MCP server plugged into an `McpIntegrationSection`. */
export const serverConfigSchema = serverFields
  .superRefine((server, ctx) => {
    const { transport, isolation } = server;
    if (isolation === undefined) return;
    if (isolation.network !== undefined && isolation.transport !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['isolation', 'network'],
        message: 'applies to the sandbox only: an isolated transport controls its own network',
      });
    }
    if (isolation.transport === undefined && transport.type !== 'stdio') {
      ctx.addIssue({
        code: 'custom',
        path: ['isolation', 'transport'],
        message: `is required for a ${transport.type} server: only stdio servers can be sandboxed`,
      });
    }
    if (isolation.transport !== undefined && postsWhereTold(isolation.transport, transport)) {
      ctx.addIssue({
        code: 'custom',
        path: ['isolation', 'transport'],
        message:
          'may speak SSE on the origin of transport, and an SSE server names where to post: it could name the normal deployment; give it a host or port of its own, or use streamable-http with sseFallback: false',
      });
    }
    if (isolation.transport !== undefined && sameDeployment(transport, isolation.transport)) {
      ctx.addIssue({
        code: 'custom',
        path: ['isolation', 'transport'],
        message:
          'reaches the same deployment as transport: calls after the switch would go where they went before; name the isolated deployment',
      });
    }
  })
  .readonly()
  .describe('One MCP server plugged into an `McpIntegrationSection`.');

/**
 * Whether two transports reach the same deployment as written: the same
 * stdio command line, or HTTP URLs with the same scheme, host, port and
 * path (credentials, query and fragment aside; `localhost` and the
 * loopback addresses count as one host). Two names for one machine that
 * only DNS can tell apart are not seen here.
 */
function sameDeployment(
  a: z.output<typeof transportSchema>,
  b: z.output<typeof transportSchema>,
): boolean {
  if (a.type === 'stdio' || b.type === 'stdio') {
    return (
      a.type === 'stdio' &&
      b.type === 'stdio' &&
      a.command === b.command &&
      JSON.stringify(a.args ?? []) === JSON.stringify(b.args ?? []) &&
      (a.cwd ?? '') === (b.cwd ?? '')
    );
  }
  if (a.type === 'in-memory' || b.type === 'in-memory') {
    return a.type === 'in-memory' && b.type === 'in-memory' && a.server === b.server;
  }
  const first = httpDeployment(a.url);
  return first !== undefined && first === httpDeployment(b.url);
}

/**
 * A key for where an HTTP server at `url` is deployed, to compare, not a
 * URL to reach: its origin as this machine reaches it ({@link machineOrigin},
 * which writes this machine's every name as one) and its path without
 * trailing slashes, with no query, credentials or fragment; one key
 * however a config spells the deployment. Undefined for a URL that does
 * not parse (the URL's own rule reports it).
 */
export function httpDeployment(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return `${machineOrigin(parsed)}${parsed.pathname.replace(/\/+$/, '')}`;
  } catch {
    return undefined;
  }
}

/**
 * Whether `isolated` may speak legacy SSE (itself, or by falling back) on
 * the origin of `normal`: its server would name the path it is sent to,
 * and could name one of the normal deployment.
 */
function postsWhereTold(
  isolated: z.output<typeof transportSchema>,
  normal: z.output<typeof transportSchema>,
): boolean {
  const sse =
    isolated.type === 'sse' ||
    (isolated.type === 'streamable-http' && isolated.sseFallback !== false);
  if (!sse || (normal.type !== 'sse' && normal.type !== 'streamable-http')) return false;
  try {
    return machineOrigin(new URL(isolated.url)) === machineOrigin(new URL(normal.url));
  } catch {
    return false; // the URL's own rule reports it
  }
}

/**
 * A URL's scheme, host and port, with every name this machine answers to
 * as one host: `localhost` and its subdomains, 127.0.0.0/8 (in any form
 * the URL parser reads as such, IPv4-mapped IPv6 too), `::1`, and the
 * unspecified `0.0.0.0` and `::`, which connect here. `localhost:3000`
 * and `127.0.0.2:3000` are one origin to a server listening on all
 * loopback addresses.
 */
function machineOrigin(url: URL): string {
  const name = url.hostname.toLowerCase().replace(/\.$/, '');
  const here =
    name === 'localhost' ||
    name.endsWith('.localhost') ||
    /^127\.\d+\.\d+\.\d+$/.test(name) ||
    name === '0.0.0.0' ||
    name === '[::1]' ||
    name === '[::]' ||
    /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(name);
  const port = url.port === '' ? (url.protocol === 'https:' ? '443' : '80') : url.port;
  return `${url.protocol}//${here ? 'this-machine' : name}:${port}`;
}

/** One MCP server as written: what `McpIntegrationSection` and the loaders accept. */
export type McpServerConfig = z.input<typeof serverConfigSchema>;
/** One MCP server after `parseServerConfigs`: checked and frozen. */
export type ResolvedServerConfig = z.output<typeof serverConfigSchema>;
/** How to reach a server; discriminated by `type`. */
export type McpTransportConfig = z.output<typeof transportSchema>;
/** Start a server as a child process and speak MCP over its stdin/stdout. */
export type StdioTransportConfig = z.output<typeof stdioTransportSchema>;
/** The legacy HTTP+SSE transport. */
export type SseTransportConfig = z.output<typeof sseTransportSchema>;
/** Streamable HTTP, the recommended remote transport. */
export type StreamableHttpTransportConfig = z.output<typeof streamableHttpTransportSchema>;
/** An SDK server in this process. */
export type InMemoryTransportConfig = z.output<typeof inMemoryTransportSchema>;
/** Where a server's calls go once the session holds private data. */
export type McpIsolationConfig = z.output<typeof isolationSchema>;
/** What a tool may do, for the isolation ratchet. */
export type ToolPermission = z.output<typeof toolPermission>;

function urlIssue(input: string, message: string): z.core.$ZodRawIssue {
  return { code: 'custom', input, message };
}

function kind(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array';
  return typeof value;
}
