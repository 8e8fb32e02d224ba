/**
 * Per-call rollback of data holding an own `__proto__` member, as
 * `JSON.parse` makes one (a server's structured result, a model's JSON):
 * when the undo copies an object around another writer's change, the
 * member stays a member. Copied by assignment, it became the copy's
 * prototype: gone from the data and the store, its contents read as
 * inherited fields.
 */
import { describe, expect, it } from 'vitest';
import { Session } from '../../src/index.js';

type Draft = { doc: Record<string, unknown>; list: Record<string, unknown>[] };

function rolledBack(write: (draft: Draft) => void, meanwhile: (draft: Draft) => void) {
  const session = new Session();
  const initial = JSON.parse(
    '{"doc":{"__proto__":{"role":"user"},"n":0,"m":0},"list":[{"__proto__":{"role":"user"},"k":0}]}',
  ) as Draft;
  const slice = session.slice<Draft>('s', { initial });
  const call = session.beginCall({ callId: 'A', toolName: 'A' });
  call.run(() => slice.update(write));
  slice.update(meanwhile); // another writer: the undo must patch around it
  const conflicts = call.rollback();
  return { value: slice.get(), conflicts };
}

function expectOwnProto(object: object): void {
  expect(Object.hasOwn(object, '__proto__')).toBe(true);
  expect(Object.getPrototypeOf(object)).toBe(Object.prototype);
  expect((object as { role?: unknown }).role).toBeUndefined();
}

describe('rollback beside an own __proto__ member', () => {
  it('keeps it a member when the undo copies its object around a sibling write', () => {
    const { value, conflicts } = rolledBack(
      (draft) => void (draft.doc.n = 1),
      (draft) => void (draft.doc.m = 2),
    );
    expect(conflicts).toEqual([]);
    expect(JSON.stringify(value.doc)).toBe('{"__proto__":{"role":"user"},"n":0,"m":2}');
    expectOwnProto(value.doc);
  });

  it('keeps it a member when the undo copies an array element around another member', () => {
    const { value, conflicts } = rolledBack(
      (draft) => void (draft.list[0]!.k = 1),
      (draft) => void (draft.list[0]!.j = 5),
    );
    expect(conflicts).toEqual([]);
    expect(JSON.stringify(value.list)).toBe('[{"__proto__":{"role":"user"},"k":0,"j":5}]');
    expectOwnProto(value.list[0]!);
  });

  it('undoes a write into it', () => {
    const { value, conflicts } = rolledBack(
      (draft) => void ((draft.doc['__proto__'] as { role: string }).role = 'admin'),
      (draft) => void (draft.doc.m = 2),
    );
    expect(conflicts).toEqual([]);
    expect(JSON.stringify(value.doc)).toBe('{"__proto__":{"role":"user"},"n":0,"m":2}');
    expectOwnProto(value.doc);
  });
});
