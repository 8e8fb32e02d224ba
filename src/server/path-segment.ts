/**
 * Turns a user or session id into one safe directory name.
 *
 * The mapping must be injective: if `a/b` and `a_b` both became `a_b`, two
 * users would share a workspace and a private-data state. So nothing is
 * replaced, only escaped: ASCII letters, digits, `_` and `-` stay; every
 * other byte of the UTF-8 form (including `.` and `%`) becomes `%XX`. The
 * result never contains `/`, never starts with `.`, and cannot be `..`.
 */
import { createHash } from 'node:crypto';
import { isWellFormed } from '../core/well-formed.js';

/** Encoded names longer than this are shortened with a hash (file systems allow 255 bytes). */
export const MAX_SEGMENT_LENGTH = 200;

const KEEP = /^[A-Za-z0-9_-]$/;

/**
 * Encodes `id` as a single path segment, injectively.
 * @throws TypeError for an id with a lone surrogate (not well-formed Unicode).
 *
 * @example
 * ```ts
 * toPathSegment('alice');      // 'alice'
 * toPathSegment('../etc');     // '%2E%2E%2Fetc'
 * ```
 */
export function toPathSegment(id: string): string {
  // Each lone surrogate's UTF-8 form is U+FFFD's: two ids would share a name.
  if (!isWellFormed(id)) {
    throw new TypeError(
      `id ${JSON.stringify(id)} holds a lone surrogate: it has no path segment of its own`,
    );
  }
  let out = '';
  for (const char of id) {
    if (KEEP.test(char)) {
      out += char;
      continue;
    }
    for (const byte of Buffer.from(char, 'utf8')) {
      out += '%' + byte.toString(16).toUpperCase().padStart(2, '0');
    }
  }
  if (out.length <= MAX_SEGMENT_LENGTH) return out;
  // `~` is never produced by the escaping above, so a shortened name cannot
  // equal any unshortened one; the full hash keeps shortened names apart.
  const digest = createHash('sha256').update(id, 'utf8').digest('hex');
  return `${out.slice(0, MAX_SEGMENT_LENGTH - digest.length - 1)}~${digest}`;
}
