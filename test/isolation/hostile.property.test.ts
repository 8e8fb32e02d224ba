/**
 * The ratchet against generated hostile input: markers of any shape, names
 * that are Object.prototype members or odd unicode, stored states merged
 * back, snapshots restored. Sensitivity never goes down, and once it is up
 * no network-capable tool (declared connect, or open-world on a server
 * without isolation) is let through.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DATA_SENSITIVITY_LEVELS,
  McpIntegrationSection,
  PRIVATE_DATA_META_KEY,
  Session,
  invokeTool,
  sensitivityRank,
  type DataSensitivity,
} from '../../src/index.js';
import { MALFORMED_MARKER_SENSITIVITY, readPrivateDataMarker } from '../../src/core/sensitivity.js';
import { callRefusal, resolveReach } from '../../src/isolation/permissions.js';
import { privateDataState } from '../../src/runtime/store/session-store.js';

const hostileName = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty', 'prototype'),
  fc.string({ minLength: 1, maxLength: 12 }),
  fc.constantFrom('\u202Eevil', 'a\nb', ' ', 'é', '𝔘'),
);
const level = fc.constantFrom(...DATA_SENSITIVITY_LEVELS);
const marker = fc.oneof(
  fc.record({ dataset: hostileName, sensitivity: level }),
  fc.record({ dataset: hostileName }),
  fc.anything(),
);

type Op =
  | { readonly kind: 'add'; readonly dataset: string; readonly level: DataSensitivity }
  | { readonly kind: 'marker'; readonly meta: unknown }
  | {
      readonly kind: 'merge';
      readonly datasets: [string, DataSensitivity][];
      readonly level: DataSensitivity;
    }
  | { readonly kind: 'snapshot' }
  | { readonly kind: 'restore' };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('add' as const), dataset: hostileName, level }),
  fc.record({
    kind: fc.constant('marker' as const),
    meta: fc.oneof(fc.record({ [PRIVATE_DATA_META_KEY]: marker }), fc.anything()),
  }),
  fc.record({
    kind: fc.constant('merge' as const),
    datasets: fc.array(fc.tuple(hostileName, level), { maxLength: 4 }),
    level,
  }),
  fc.constant({ kind: 'snapshot' as const }),
  fc.constant({ kind: 'restore' as const }),
);

const reach = fc
  .record({
    configured: fc.option(fc.subarray(['read', 'write', 'connect'] as const), { nil: undefined }),
    openWorldHint: fc.option(fc.boolean(), { nil: undefined }),
  })
  .map(({ configured, openWorldHint }) =>
    resolveReach(configured, openWorldHint === undefined ? {} : { openWorldHint }),
  );

describe('the ratchet under hostile input (decision level, 10,000 runs)', () => {
  it('never lowers sensitivity and never lets a network tool through once it is up', () => {
    fc.assert(
      fc.property(
        fc.array(op, { maxLength: 12 }),
        reach,
        fc.boolean(),
        (ops, toolReach, isolated) => {
          const session = new Session();
          let highest = 0;
          let snapshot = session.snapshot();
          for (const step of ops) {
            switch (step.kind) {
              case 'add':
                session.privateData.add(step.dataset, step.level);
                break;
              case 'marker': {
                const reading = readPrivateDataMarker(step.meta);
                if (reading.kind === 'marker') {
                  session.privateData.add(reading.marker.dataset, reading.marker.sensitivity);
                } else if (reading.kind === 'malformed') {
                  session.privateData.add('tool', MALFORMED_MARKER_SENSITIVITY);
                }
                break;
              }
              case 'merge':
                session.privateData.merge(
                  privateDataState(step.level, Object.fromEntries(step.datasets)),
                );
                break;
              case 'snapshot':
                snapshot = session.snapshot();
                break;
              case 'restore':
                session.restore(snapshot);
                break;
            }
            const rank = sensitivityRank(session.privateData.sensitivity);
            expect(rank).toBeGreaterThanOrEqual(highest);
            highest = rank;
            // The state a store would hold reads back at the same level, whatever the names.
            const stored = session.privateData.toJSON();
            const resumed = privateDataState(
              stored.sensitivity,
              JSON.parse(JSON.stringify(stored.datasets)) as Record<string, DataSensitivity>,
            );
            expect(resumed.sensitivity).toBe(session.privateData.sensitivity);
          }
          const refusal = callRefusal('t', toolReach, {
            hasPrivateData: session.privateData.hasPrivateData,
            serverIsolated: isolated,
          });
          if (session.privateData.sensitivity === 'public') {
            expect(refusal).toBeUndefined();
          } else if (toolReach.declaredConnect || (!isolated && !toolReach.declaredClosedWorld)) {
            expect(refusal).toBeDefined();
          }
        },
      ),
      { numRuns: 10_000 },
    );
  });
});

describe('the ratchet under hostile servers (end to end, in memory)', () => {
  it('never goes down, and no network tool reaches a server after escalation', async () => {
    const calls: string[] = [];
    let nextMeta: unknown;
    const server = new Server(
      { name: 'hostile', version: '1.0.0' },
      { capabilities: { tools: {} } },
    );
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [
        { name: 'read', inputSchema: { type: 'object' }, annotations: { openWorldHint: false } },
        { name: 'fetch', inputSchema: { type: 'object' }, annotations: { openWorldHint: true } },
        { name: 'plain', inputSchema: { type: 'object' } },
      ],
    }));
    server.setRequestHandler(CallToolRequestSchema, (request) => {
      calls.push(request.params.name);
      const meta = nextMeta;
      return {
        content: [{ type: 'text', text: 'ok' }],
        ...(typeof meta === 'object' && meta !== null && !Array.isArray(meta)
          ? { _meta: meta as Record<string, unknown> }
          : {}),
      };
    });
    const session = new Session();
    const section = new McpIntegrationSection({
      session,
      servers: [{ name: 'web', transport: { type: 'in-memory', server } }],
    });
    await section.connect();
    try {
      const tool = (name: string) => section.tools().find((t) => t.name === `web_${name}`)!;
      await fc.assert(
        fc.asyncProperty(
          fc.array(
            fc.record({
              tool: fc.constantFrom('read', 'fetch', 'plain'),
              meta: fc.oneof(
                fc.record({ [PRIVATE_DATA_META_KEY]: marker }),
                fc.constant(undefined),
              ),
            }),
            { maxLength: 6 },
          ),
          async (steps) => {
            for (const step of steps) {
              const before = sensitivityRank(session.privateData.sensitivity);
              const escalated = session.privateData.hasPrivateData;
              calls.length = 0;
              nextMeta = step.meta;
              await invokeTool(tool(step.tool), {}, { session });
              expect(sensitivityRank(session.privateData.sensitivity)).toBeGreaterThanOrEqual(
                before,
              );
              if (escalated && step.tool !== 'read') expect(calls).toEqual([]);
            }
          },
        ),
        { numRuns: 300 },
      );
    } finally {
      await section.disconnect();
    }
  });
});
