/**
 * Sections of one session that run the hostile `workspace-reader-server`
 * in one directory, each isolating it its own way (a sandbox at
 * `confidential` or at `secret`, an isolated stdio deployment, or not at
 * all), with connects, calls carrying private text, the escalation,
 * disconnects and reconnects released in any order fast-check's scheduler
 * picks. Whatever the order:
 * - no process without isolation reads the private text and posts it out
 *   (every instance posts what it finds in the directory, when it can);
 * - every step settles within its bound (no wait on a process end that
 *   never comes);
 * - once every section is disconnected, no server process is left.
 * A server isolated only at `secret` takes confidential data on its normal
 * deployment by configuration, so it is never called here.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  invokeTool,
  McpIntegrationSection,
  type McpServerConfig,
  Session,
} from '../../src/index.js';
import { sandboxSupport } from '../../src/isolation/sandbox.js';
import { processesWithEnv } from '../cli/helpers.js';
import {
  type PostSink,
  startPostSink,
  WORKSPACE_READER_SERVER as SERVER,
} from '../support/post-sink.js';

const PRIVATE = 'PRIVATE-diagnosis-4714';
const STEP_MS = 25_000;
const canSandbox = process.platform === 'linux' && sandboxSupport().available;

type Kind = 'sandbox' | 'sandbox-at-secret' | 'none' | 'isolated-stdio';

let sink: PostSink;
const directories: string[] = [];

beforeAll(async () => {
  sink = await startPostSink();
});

afterAll(async () => {
  for (const pid of processesWithEnv('SINK_PORT', String(sink.port))) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
  await sink.close();
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
});

function configFor(kind: Kind, cwd: string): McpServerConfig {
  const command = { type: 'stdio' as const, command: process.execPath, cwd };
  const base = {
    name: 'notes',
    timeoutMs: 10_000,
    transport: { ...command, args: [SERVER] },
    env: { SINK_PORT: String(sink.port) },
  };
  switch (kind) {
    case 'sandbox':
      return { ...base, isolation: {} };
    case 'sandbox-at-secret':
      return { ...base, isolation: { at: 'secret' } };
    case 'none':
      return base;
    case 'isolated-stdio':
      return { ...base, isolation: { transport: { ...command, args: [SERVER, '--offline'] } } };
  }
}

/** Resolves when `step` settles, or after {@link STEP_MS}, noting the hang. */
function bounded(step: Promise<unknown>, label: string, hangs: string[]): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    step.then(
      () => undefined,
      () => undefined,
    ),
    new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        hangs.push(label);
        resolve();
      }, STEP_MS);
    }),
  ]).finally(() => clearTimeout(timer));
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe.runIf(canSandbox)('sections of one session sharing a directory, in any order', () => {
  it('let no private text out, hang nowhere and leave no process', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom<Kind>('sandbox', 'sandbox-at-secret', 'none', 'isolated-stdio'), {
          minLength: 2,
          maxLength: 3,
        }),
        fc.array(fc.constantFrom('disconnect', 'reconnect', 'call'), { maxLength: 3 }),
        fc.scheduler(),
        async (kinds, extras, s) => {
          const postsBefore = sink.posts.length;
          const cwd = mkdtempSync(path.join(tmpdir(), 'mcp-sections-shared-ws-prop-'));
          directories.push(cwd);
          const session = new Session();
          const sections = kinds.map(
            (kind, index) =>
              new McpIntegrationSection({
                session,
                key: `s${index}`,
                onConnectError: 'report',
                servers: [configFor(kind, cwd)],
              }),
          );
          const hangs: string[] = [];
          const steps: Promise<void>[] = [];
          const run = (label: string, step: () => Promise<unknown>): void => {
            steps.push(
              s.schedule(Promise.resolve(label)).then(() => bounded(step(), label, hangs)),
            );
          };
          const call = async (index: number): Promise<void> => {
            const section = sections[index]!;
            if (kinds[index] === 'sandbox-at-secret' || !section.connected) return;
            const tool = section.tools().find(({ name }) => name === 'notes_save');
            if (tool !== undefined) await invokeTool(tool, { text: PRIVATE }, { session });
          };
          sections.forEach((section, index) => {
            run(`connect s${index}`, () => section.connect());
            run(`call s${index}`, () => call(index));
          });
          run('escalate', () =>
            Promise.resolve(session.privateData.add('patients', 'confidential')),
          );
          extras.forEach((extra, step) => {
            const index = step % sections.length;
            const section = sections[index]!;
            if (extra === 'disconnect') run(`disconnect s${index}`, () => section.disconnect());
            else if (extra === 'reconnect')
              run(`reconnect s${index}`, () => section.disconnect().then(() => section.connect()));
            else run(`call again s${index}`, () => call(index));
          });
          await s.waitAll();
          await Promise.all(steps);
          // Once escalated, one more call on each section, and time for any reader to post.
          await Promise.all(sections.map((_, index) => bounded(call(index), 'last call', hangs)));
          await pause(300);
          await Promise.all(
            sections.map((section, index) =>
              bounded(section.disconnect(), `disconnect s${index} at the end`, hangs),
            ),
          );
          await pause(200);
          const leaked = sink.posts.slice(postsBefore).filter((post) => post.includes(PRIVATE));
          const left = processesWithEnv('SINK_PORT', String(sink.port));
          expect(
            { hangs, leaked, left },
            `${JSON.stringify({ kinds, extras })}: ${s
              .report()
              .map(({ label }) => label)
              .join(' > ')}`,
          ).toEqual({ hangs: [], leaked: [], left: [] });
        },
      ),
      { numRuns: 15 },
    );
  }, 300_000);
});
