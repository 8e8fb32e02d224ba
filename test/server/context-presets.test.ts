/** Pins the exact numbers of the built-in `contextResult` presets, and that they are frozen. */
import { describe, expect, it } from 'vitest';
import { CONTEXT_PRESETS } from '../../src/server/context-presets.js';

const DEFAULT = {
  threshold: 5_000,
  jsonHeadItems: 10,
  jsonTailItems: 5,
  jsonMaxKeys: 20,
  csvHeadRows: 20,
  csvTailRows: 10,
  textHeadLines: 50,
  textTailLines: 20,
  maxLineChars: 500,
  maxPreviewChars: 5_000,
};

describe('CONTEXT_PRESETS', () => {
  it('holds exactly default, sql_query and log_search', () => {
    expect(Object.keys(CONTEXT_PRESETS)).toEqual(['default', 'sql_query', 'log_search']);
  });

  it('pins every number', () => {
    expect(CONTEXT_PRESETS.default).toEqual(DEFAULT);
    expect(CONTEXT_PRESETS.sql_query).toEqual({
      ...DEFAULT,
      threshold: 2_000,
      csvHeadRows: 30,
      csvTailRows: 10,
      maxPreviewChars: 4_000,
    });
    expect(CONTEXT_PRESETS.log_search).toEqual({
      ...DEFAULT,
      threshold: 10_000,
      maxLineChars: 1_000,
      maxPreviewChars: 10_000,
    });
  });

  it('is frozen at every level', () => {
    expect(Object.isFrozen(CONTEXT_PRESETS)).toBe(true);
    for (const preset of Object.values(CONTEXT_PRESETS)) expect(Object.isFrozen(preset)).toBe(true);
    expect(() => {
      (CONTEXT_PRESETS.default as { threshold: number }).threshold = 1;
    }).toThrow(TypeError);
  });
});
