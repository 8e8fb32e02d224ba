import { describe, expect, it } from 'vitest';
import {
  DEFAULT_OVERRIDES_TAG,
  OVERRIDES_FORMAT_VERSION,
  PromptOverridesError,
  contentHash,
  parsePromptOverrides,
} from '../../../src/index.js';
import {
  checkOverridesRef,
  overridesDocument,
} from '../../../src/prompt/overrides/prompt-overrides.js';

const HASH = contentHash('text');

describe('parsePromptOverrides', () => {
  it('returns a frozen value with trimmed descriptions and empty maps for missing parts', () => {
    const parsed = parsePromptOverrides({
      ns: 'demo',
      key: 'welcome',
      tag: 'latest',
      tools: { search: { expectedHash: HASH, description: '  Full-text search \n' } },
    });
    expect(parsed.tools.search?.description).toBe('Full-text search');
    expect(parsed.sections).toEqual({});
    expect(Object.isFrozen(parsed)).toBe(true);
    expect(Object.isFrozen(parsed.tools)).toBe(true);
    expect(Object.isFrozen(parsed.tools.search)).toBe(true);
    // Parsing a parsed value again is free and gives it back.
    expect(parsePromptOverrides(parsed)).toBe(parsed);
  });

  it('keeps an empty body: a section may be overridden to say nothing', () => {
    const parsed = parsePromptOverrides({
      ns: 'demo',
      key: 'welcome',
      tag: 'latest',
      sections: { 'task.style': { expectedHash: HASH, body: '' } },
    });
    expect(parsed.sections['task.style']?.body).toBe('');
  });

  it.each([
    [
      null,
      'prompt overrides: expected an object with ns, key, tag, sections and tools, received null',
    ],
    ['text', 'received "text"'],
    [
      { ns: 'Demo', key: 'welcome', tag: 'latest' },
      'ns "Demo" must match ^[a-z0-9][a-z0-9._-]{0,63}$',
    ],
    [{ ns: 'demo', key: 'welcome' }, 'tag must be a string'],
    [{ ns: 'demo', key: 'welcome', tag: 'latest', extra: 1 }, 'unknown field "extra"'],
    [
      {
        ns: 'demo',
        key: 'welcome',
        tag: 'latest',
        sections: { '.task': { expectedHash: HASH, body: '' } },
      },
      'sections: ".task" is not a section path',
    ],
    [
      { ns: 'demo', key: 'welcome', tag: 'latest', tools: { search: 'Full-text search' } },
      'tools.search: Invalid input: expected object, received string',
    ],
  ])('refuses %j', (value, message) => {
    expect(() => parsePromptOverrides(value)).toThrow(PromptOverridesError);
    expect(() => parsePromptOverrides(value)).toThrow(message);
  });

  it('names the source it is given and requires a version when asked', () => {
    expect(() =>
      parsePromptOverrides(
        { ns: 'demo', key: 'welcome', tag: 'latest' },
        { source: 'row 7', requireVersion: true },
      ),
    ).toThrow('row 7: version: missing; expected 1');
  });
});

describe('overridesDocument and checkOverridesRef', () => {
  it('write the format version first, as plain data that parses back to the same value', () => {
    const parsed = parsePromptOverrides({
      ns: 'demo',
      key: 'welcome',
      tag: DEFAULT_OVERRIDES_TAG,
      sections: { task: { expectedHash: HASH, body: 'x' } },
    });
    const document = overridesDocument(parsed);
    expect(Object.keys(document)).toEqual(['version', 'ns', 'key', 'tag', 'sections', 'tools']);
    expect(document.version).toBe(OVERRIDES_FORMAT_VERSION);
    expect(parsePromptOverrides(JSON.parse(JSON.stringify(document)))).toEqual(parsed);
  });

  it('quote a bad name', () => {
    expect(() => checkOverridesRef({ ns: 'demo', key: 'a b', tag: 'latest' })).toThrow(
      'overrides key "a b" must match',
    );
    expect(() =>
      checkOverridesRef({ ns: 'demo', key: 'welcome', tag: undefined as unknown as string }),
    ).toThrow('overrides tag undefined must match');
  });
});
