/**
 * Interleavings of calls that open sections: a section opened inside a
 * call that later fails is closed again by that call's rollback, unless a
 * call that succeeded opened it too; what succeeding calls opened stays,
 * whatever the order.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  MarkdownSection,
  OPENED_SECTIONS_SLICE,
  Prompt,
  PromptTemplate,
  Session,
  Tool,
  ToolResult,
  invokeTool,
  type OpenedSections,
} from '../../../src/index.js';

const KEYS = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta'] as const;

function promptOfSummarized(): Prompt {
  const sections = KEYS.map(
    (key) =>
      new MarkdownSection({
        key,
        title: key,
        template: `All about ${key}.`,
        summary: `${key}, in short.`,
        visibility: 'summary',
        tools: [
          Tool.create({
            name: `use_${key}`,
            description: `Uses ${key}`,
            params: z.object({}),
            handler: () => ToolResult.ok(null),
          }),
        ],
      }),
  );
  return new Prompt(PromptTemplate.create({ ns: 'prop', key: 'open', sections }));
}

describe('open_sections under interleaved calls, property', () => {
  it('keeps exactly the sections opened by calls that succeeded', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        // Keys from a small set, so that calls often open the same section.
        fc.array(
          fc.record({
            key: fc.constantFrom(...KEYS.slice(0, 3)),
            ok: fc.boolean(),
            nested: fc.boolean(),
          }),
          { minLength: 2, maxLength: 6 },
        ),
        async (scheduler, plans) => {
          const session = new Session();
          const prompt = promptOfSummarized();
          const open = prompt.render({ session }).tools.find((t) => t.name === 'open_sections')!;
          const calls = plans.map((plan, index) => {
            const { key } = plan;
            const openIt = (): Promise<ToolResult> =>
              invokeTool(open, { section_keys: [key], reason: 'test' }, { session });
            if (!plan.nested) {
              // The model's own call: it succeeds, so its opening stays.
              return scheduler.schedule(Promise.resolve(), `open ${key}`).then(openIt);
            }
            // An agent step that opens a section, then fails or succeeds.
            const step = Tool.create({
              name: `step_${String(index)}`,
              description: `Opens ${key}, then ends`,
              params: z.object({}),
              handler: async () => {
                await scheduler.schedule(Promise.resolve(), `${key} before`);
                const opened = await openIt();
                if (!opened.success) return opened;
                await scheduler.schedule(Promise.resolve(), `${key} after`);
                return plan.ok ? ToolResult.ok(null) : ToolResult.error('the step failed');
              },
            });
            return invokeTool(step, {}, { session });
          });
          await scheduler.waitFor(Promise.all(calls));
          const kept = [
            ...new Set(plans.filter((plan) => !plan.nested || plan.ok).map((plan) => plan.key)),
          ];
          const entries = session.slice<OpenedSections>(OPENED_SECTIONS_SLICE).get();
          expect(Object.keys(entries).sort()).toEqual(kept.map((key) => `prop/open#${key}`).sort());
          // The next render offers exactly the tools of those sections.
          const offered = prompt
            .render({ session })
            .tools.map((tool) => tool.name)
            .filter((name) => name.startsWith('use_'));
          expect(offered.sort()).toEqual(kept.map((key) => `use_${key}`).sort());
        },
      ),
      { numRuns: 150 },
    );
  });
});
