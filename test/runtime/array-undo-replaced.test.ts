/**
 * A failed call's write inside an array element that a successful call
 * then replaced with a row of its own, holding the same value at the
 * failed call's place: the rollback leaves the successful call's row as it
 * is and reports the conflict. (From the values alone, a row put in the
 * element's place cannot be told from the element edited: undoing key by
 * key there took a key out of the successful call's row.)
 */
import { describe, expect, it } from 'vitest';
import { Session } from '../../src/index.js';

interface Row {
  readonly id?: string;
  readonly fields: Readonly<Record<string, number>>;
}

/** Call `a` writes `fields.a` of row 0 and fails; call `b` puts `replacement` in its place and commits. */
function replacedUnderAFailedCall(initial: Row, replacement: Row) {
  const session = new Session();
  const rows = session.slice<{ readonly rows: readonly Row[] }>('rows', {
    initial: { rows: [initial] },
  });
  const a = session.beginCall({ callId: 'a', toolName: 'a' });
  const b = session.beginCall({ callId: 'b', toolName: 'b' });
  a.run(() =>
    rows.update((draft) => {
      (draft.rows[0]!.fields as Record<string, number>)['a'] = 1;
    }),
  );
  b.run(() =>
    rows.update((draft) => {
      draft.rows[0] = replacement;
    }),
  );
  b.commit();
  return { conflicts: a.rollback(), row: rows.get().rows[0] };
}

describe('rollback inside an array element another call replaced', () => {
  it("keeps the successful call's row, with a value equal to the failed call's", () => {
    const replacement = { id: 'r0', fields: { a: 1, b: 2 } };
    const { conflicts, row } = replacedUnderAFailedCall({ id: 'r0', fields: {} }, replacement);
    expect(row).toEqual(replacement);
    expect(conflicts).toEqual([{ slice: 'rows', path: ['rows', 0], reason: 'overwritten' }]);
  });

  it('keeps it for rows without a plain member too', () => {
    const replacement = { fields: { a: 1, keep: 7 } };
    const { conflicts, row } = replacedUnderAFailedCall({ fields: {} }, replacement);
    expect(row).toEqual(replacement);
    expect(conflicts).toHaveLength(1);
  });
});
