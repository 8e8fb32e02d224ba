/**
 * The content hash a prompt override records of the text it replaces: the
 * override applies only while the text still has that hash.
 */
import { createHash } from 'node:crypto';

/** A content hash: the lowercase hex SHA-256 of the text's UTF-8 bytes. */
export const CONTENT_HASH_PATTERN = /^[0-9a-f]{64}$/;

/**
 * The content hash of `text`: lowercase hex SHA-256 of its UTF-8 bytes.
 *
 * @example
 * contentHash('Review the change.'); // '3f1e…' (64 hex digits)
 */
export function contentHash(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
