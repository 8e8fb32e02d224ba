import { describe, expect, it } from 'vitest';
import { SensitivityEscalated, Session } from '../../src/index.js';
import { MAX_DATASET_NAME_LENGTH } from '../../src/runtime/private-data.js';

function watched(): { session: Session; rises: SensitivityEscalated[] } {
  const session = new Session({ sessionId: 'pd' });
  const rises: SensitivityEscalated[] = [];
  session.bus.subscribe(SensitivityEscalated, (event) => rises.push(event));
  return { session, rises };
}

describe('session.privateData', () => {
  it('starts public with no datasets', () => {
    const { privateData } = new Session();
    expect(privateData.hasPrivateData).toBe(false);
    expect(privateData.sensitivity).toBe('public');
    expect([...privateData.datasets]).toEqual([]);
  });

  it('adds a dataset as confidential by default', () => {
    const { session } = watched();
    session.privateData.add('crm');
    expect(session.privateData.hasPrivateData).toBe(true);
    expect(session.privateData.sensitivity).toBe('confidential');
    expect([...session.privateData.datasets]).toEqual([['crm', 'confidential']]);
  });

  it('is the maximum level ever added; a lower one does not lower it', () => {
    const { session } = watched();
    session.privateData.add('payroll', 'secret');
    session.privateData.add('wiki', 'internal');
    expect(session.privateData.sensitivity).toBe('secret');
    expect([...session.privateData.datasets]).toEqual([
      ['payroll', 'secret'],
      ['wiki', 'internal'],
    ]);
  });

  it('raises the level when a dataset is added again at a higher level, never lowers a dataset', () => {
    const { session } = watched();
    session.privateData.add('crm', 'internal');
    session.privateData.add('crm', 'secret');
    session.privateData.add('crm', 'public');
    expect(session.privateData.sensitivity).toBe('secret');
    expect(session.privateData.datasets.get('crm')).toBe('secret');
  });

  it('is kept by restore()', () => {
    const { session } = watched();
    session.privateData.add('crm', 'internal');
    const snapshot = session.snapshot();
    session.privateData.add('payroll', 'secret');
    session.restore(snapshot);
    expect(session.privateData.sensitivity).toBe('secret');
    expect(session.privateData.datasets.get('payroll')).toBe('secret');
  });

  it('publishes SensitivityEscalated exactly once per rise', () => {
    const { session, rises } = watched();
    session.privateData.add('wiki', 'internal');
    session.privateData.add('notes', 'internal');
    session.privateData.add('crm');
    session.privateData.add('crm', 'internal');
    session.privateData.add('payroll', 'secret');
    session.privateData.add('payroll', 'secret');

    expect(
      rises.map(({ previous, sensitivity, dataset, sessionId }) => ({
        previous,
        sensitivity,
        dataset,
        sessionId,
      })),
    ).toEqual([
      { previous: 'public', sensitivity: 'internal', dataset: 'wiki', sessionId: 'pd' },
      { previous: 'internal', sensitivity: 'confidential', dataset: 'crm', sessionId: 'pd' },
      { previous: 'confidential', sensitivity: 'secret', dataset: 'payroll', sessionId: 'pd' },
    ]);
    expect(rises[0]!.createdAt).toBeInstanceOf(Date);
  });

  it('publishes nothing for a public dataset, which is recorded without counting as private', () => {
    const { session, rises } = watched();
    session.privateData.add('docs', 'public');
    expect(rises).toEqual([]);
    expect(session.privateData.datasets.get('docs')).toBe('public');
    expect(session.privateData.hasPrivateData).toBe(false);
    expect(session.privateData.sensitivity).toBe('public');
  });

  it('cannot be lowered through the datasets it hands out', () => {
    const { session } = watched();
    session.privateData.add('payroll', 'secret');
    const datasets = session.privateData.datasets as Map<string, string>;
    datasets.clear();
    expect(session.privateData.hasPrivateData).toBe(true);
    expect(session.privateData.datasets.get('payroll')).toBe('secret');
  });

  it('rejects an empty dataset name or an unknown level, quoting the value', () => {
    const { privateData } = new Session();
    expect(() => privateData.add('')).toThrow('dataset name "" must be a non-empty string');
    expect(() => privateData.add('x', 'top-secret' as never)).toThrow(
      'sensitivity "top-secret" must be one of public, internal, confidential, secret',
    );
    expect(privateData.hasPrivateData).toBe(false);
  });

  it('merges state from elsewhere as a maximum', () => {
    const { session, rises } = watched();
    session.privateData.add('payroll', 'secret');
    session.privateData.merge({
      hasPrivateData: true,
      sensitivity: 'internal',
      datasets: { payroll: 'public', wiki: 'internal' },
    });
    expect(session.privateData.sensitivity).toBe('secret');
    expect(Object.fromEntries(session.privateData.datasets)).toEqual({
      payroll: 'secret',
      wiki: 'internal',
    });
    expect(rises).toHaveLength(1);
  });

  it('serializes to a frozen plain object', () => {
    const { session } = watched();
    session.privateData.add('crm');
    const state = session.privateData.toJSON();
    expect(JSON.parse(JSON.stringify(session.privateData))).toEqual({
      hasPrivateData: true,
      sensitivity: 'confidential',
      datasets: { crm: 'confidential' },
    });
    expect(Object.isFrozen(state)).toBe(true);
    expect(Object.isFrozen(state.datasets)).toBe(true);
  });
});

describe('a dataset name that is not well-formed Unicode', () => {
  it('is kept as its UTF-8 form reads back (U+FFFD), so every store names it alike; levels only rise', () => {
    const { privateData } = new Session();
    privateData.add('ds\uD800', 'internal');
    privateData.add('ds\uDC00', 'secret');
    privateData.add('ds\uFFFD', 'confidential');
    expect([...privateData.datasets]).toEqual([['ds\uFFFD', 'secret']]);
    expect(privateData.sensitivity).toBe('secret');
  });
});

describe('a dataset name of any length', () => {
  it(`is kept within ${MAX_DATASET_NAME_LENGTH} characters, distinct names staying distinct and the same name the same`, () => {
    const session = new Session();
    const long = 'd'.repeat(1_000_000);
    session.privateData.add(long, 'secret');
    session.privateData.add(`${long}x`, 'confidential');
    session.privateData.add(long, 'confidential');
    const names = [...session.privateData.datasets.keys()];
    expect(names).toHaveLength(2);
    for (const name of names) expect(name.length).toBeLessThanOrEqual(MAX_DATASET_NAME_LENGTH);
    expect(session.privateData.sensitivity).toBe('secret');
    expect([...session.privateData.datasets.values()].sort()).toEqual(['confidential', 'secret']);
  });

  it('is kept as it is when a state that holds it is merged back (a store, another worker)', () => {
    const first = new Session();
    first.privateData.add('f'.repeat(1_000), 'secret');
    const state = first.privateData.toJSON();
    const version = first.privateData.version;
    first.privateData.merge(state);
    expect(first.privateData.version).toBe(version);
    const second = new Session();
    second.privateData.merge(state);
    expect([...second.privateData.datasets]).toEqual([...first.privateData.datasets]);
    // A stored name past the bound (a hostile store) is still shortened.
    second.privateData.merge({ ...state, datasets: { ['g'.repeat(1_000)]: 'internal' } });
    for (const name of second.privateData.datasets.keys()) {
      expect(name.length).toBeLessThanOrEqual(MAX_DATASET_NAME_LENGTH);
    }
  });

  it('keeps a short name that looks like a shortened one apart from the name it would imitate', () => {
    const session = new Session();
    const long = 'e'.repeat(1_000);
    session.privateData.add(long, 'secret');
    const [shortened] = [...session.privateData.datasets.keys()];
    session.privateData.add(shortened!, 'internal'); // a marker naming the shortened form itself
    expect(session.privateData.datasets.size).toBe(2);
    expect(session.privateData.datasets.get(shortened!)).toBe('secret');
  });
});
