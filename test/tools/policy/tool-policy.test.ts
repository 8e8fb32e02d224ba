/**
 * Policies declared on sections and templates are checked when those are
 * built, with errors that name the owner and the bad entry.
 */
import { describe, expect, it } from 'vitest';
import {
  MarkdownSection,
  PolicyDecision,
  PromptTemplate,
  PromptValidationError,
  type ToolPolicy,
} from '../../../src/index.js';
import { checkToolPolicies } from '../../../src/tools/policy/tool-policy.js';

const allow: ToolPolicy = { name: 'allow-all', check: () => PolicyDecision.allow() };

describe('checkToolPolicies', () => {
  it('returns a frozen copy of a valid list', () => {
    const list = [allow];
    const checked = checkToolPolicies(list, 'section "s"');
    expect(checked).toEqual([allow]);
    expect(checked).not.toBe(list);
    expect(Object.isFrozen(checked)).toBe(true);
    expect(checkToolPolicies(undefined, 'x')).toEqual([]);
  });

  it.each<[string, unknown, string]>([
    [
      'not an array',
      allow,
      'section "s": policies must be an array of ToolPolicy, received object',
    ],
    ['a null entry', [null], 'section "s": policies[0] must be a ToolPolicy object, received null'],
    [
      'a bad name',
      [allow, { name: 'Bad Name', check: () => PolicyDecision.allow() }],
      'section "s": policies[1]: name "Bad Name" must match ^[a-z0-9][a-z0-9._-]{0,63}$',
    ],
    [
      'a missing check',
      [{ name: 'p' }],
      'section "s": policies[0] ("p"): check must be a function, received undefined',
    ],
    [
      'an onResult that is not a function',
      [{ name: 'p', check: () => PolicyDecision.allow(), onResult: 'log' }],
      'section "s": policies[0] ("p"): onResult must be a function when given, received string',
    ],
  ])('refuses %s', (_label, value, message) => {
    expect(() => checkToolPolicies(value, 'section "s"')).toThrow(PromptValidationError);
    expect(() => checkToolPolicies(value, 'section "s"')).toThrow(message);
  });

  it('runs when a section or a template is built', () => {
    const bad = [{ name: 'p', check: 'yes' }] as unknown as ToolPolicy[];
    expect(
      () => new MarkdownSection({ key: 'files', title: 'Files', template: 'x', policies: bad }),
    ).toThrow('section "files": policies[0] ("p"): check must be a function, received string');
    const section = new MarkdownSection({ key: 'files', title: 'Files', template: 'x' });
    expect(() =>
      PromptTemplate.create({ ns: 'agent', key: 'main', sections: [section], policies: bad }),
    ).toThrow('prompt "agent/main": policies[0] ("p"): check must be a function, received string');
  });
});
