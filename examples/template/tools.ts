/**
 * The template server's tools. Each one wraps a connector function and adds
 * what only a tool knows: its declared permissions, context-sized results,
 * private-data flagging and errors the model can act on.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import {
  contextResult,
  defineTool,
  getSessionId,
  getUserId,
  privateData,
  ToolRetryError,
} from '../../src/server/index.js';
import {
  fetchText,
  loadDataset,
  readWorkspaceFile,
  searchCatalogue,
  writeWorkspaceFile,
} from './connector.js';

/** Options of {@link registerTemplateTools}. */
export interface TemplateToolsOptions {
  /** Which deployment this is (`normal`, `isolated`), reported by `whoami`. */
  readonly instance: string;
  /** Let `fetch_url` reach loopback and private addresses (tests, on purpose). @default false */
  readonly allowPrivateNetwork?: boolean;
}

/** Registers the template tools on a server made by `createMcpServer`. */
export function registerTemplateTools(server: McpServer, options: TemplateToolsOptions): void {
  defineTool(server, {
    name: 'whoami',
    description: 'Report which server instance answered and for which user and session.',
    permissions: ['read'],
    handler: () =>
      JSON.stringify({
        instance: options.instance,
        userId: getUserId(),
        sessionId: getSessionId(),
      }),
  });

  defineTool(server, {
    name: 'read_file',
    description:
      'Read a UTF-8 text file from the workspace (/workspace/...). Long files are saved and previewed.',
    permissions: ['read'],
    inputSchema: { path: z.string().describe('Path under /workspace, e.g. /workspace/notes.txt') },
    handler: async ({ path }, extra) => {
      // Server-to-client log line; clients may show or record it.
      await extra.sendNotification({
        method: 'notifications/message',
        params: { level: 'info', logger: 'template', data: `Reading file: ${path}` },
      });
      return contextResult(await readWorkspaceFile(path, extra.signal));
    },
  });

  defineTool(server, {
    name: 'write_file',
    description: 'Write a UTF-8 text file in the workspace (/workspace/...), creating directories.',
    permissions: ['write'],
    inputSchema: {
      path: z.string().describe('Path under /workspace'),
      content: z.string().describe('The full new content'),
    },
    annotations: { destructiveHint: true, idempotentHint: true },
    handler: async ({ path, content }, extra) => {
      const written = await writeWorkspaceFile(path, content, extra.signal);
      return `Wrote ${written} characters to ${path}`;
    },
  });

  defineTool(server, {
    name: 'search_records',
    description: 'Search the public sample catalogue by name, category or city.',
    permissions: ['read'],
    inputSchema: { query: z.string().describe('Text to look for, e.g. "Oslo" or "software"') },
    handler: async ({ query }) => {
      if (query.trim() === '') {
        throw new ToolRetryError(
          'query is empty; provide a search term such as "Oslo" or "software"',
        );
      }
      return contextResult(searchCatalogue(query));
    },
  });

  defineTool(server, {
    name: 'load_sensitive_dataset',
    description:
      'Load a sensitive sample dataset (patient_records, salary_bands). Flags the session as holding private data.',
    permissions: ['read'],
    inputSchema: { name: z.string().describe('Dataset name, e.g. patient_records') },
    handler: async ({ name }) => {
      const dataset = loadDataset(name);
      // Before the data leaves the tool: the state file and the result
      // marker must exist even if serialising the rows fails.
      await privateData.add(dataset.name, dataset.sensitivity);
      return contextResult(dataset.rows);
    },
  });

  defineTool(server, {
    name: 'fetch_url',
    description:
      'Fetch a web page or API response from a public host over HTTP(S). Blocked once the session holds private data.',
    permissions: ['connect'],
    inputSchema: { url: z.string().describe('An http(s) URL') },
    handler: async ({ url }, extra) =>
      contextResult(
        await fetchText(url, {
          signal: extra.signal,
          allowPrivateNetwork: options.allowPrivateNetwork === true,
        }),
      ),
  });
}
