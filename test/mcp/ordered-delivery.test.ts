/**
 * A call's progress that arrives in the same read as the call's response
 * is still seen (test/fixtures/hostile/one-write-progress-server.mjs
 * writes both at once): the SDK alone handles the response first and drops
 * the progress as "unknown token".
 */
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { invokeTool, McpIntegrationSection, McpToolProgress, Session } from '../../src/index.js';

const SERVER = fileURLToPath(
  new URL('../fixtures/hostile/one-write-progress-server.mjs', import.meta.url),
);

describe('progress and response in one read', () => {
  it('publishes every call its progress before the call returns', async () => {
    const session = new Session();
    const progress: string[] = [];
    session.bus.subscribe(McpToolProgress, (event) => {
      progress.push(`${event.callId} ${event.message ?? ''}`);
    });
    const section = new McpIntegrationSection({
      servers: [
        { name: 'one', transport: { type: 'stdio', command: process.execPath, args: [SERVER] } },
      ],
      session,
    });
    try {
      await section.connect();
      const [work] = section.tools();
      const seenAtReturn: number[] = [];
      const callIds: string[] = [];
      for (let call = 0; call < 10; call++) {
        const result = await invokeTool(work!, {}, { session });
        expect(result.message).toBe('done');
        seenAtReturn.push(progress.length);
      }
      for (const line of progress) callIds.push(line.split(' ')[0]!);
      expect(seenAtReturn).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect(new Set(callIds).size).toBe(10);
      expect(progress.every((line) => line.endsWith(' all done'))).toBe(true);
    } finally {
      await section.disconnect();
    }
  });
});
