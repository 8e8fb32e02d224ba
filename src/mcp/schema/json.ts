/**
 * What the schema layer bounds and refuses: its limits, its problem type,
 * and one walk over a schema that writes no text.
 */
import type { JsonRecord } from '../../core/json.js';

/** Why a schema is refused; it names no tool, so one cached refusal serves every tool. */
export class SchemaProblem extends Error {
  override readonly name: string = 'SchemaProblem';
}

/** Deeper than this and the schema is refused: no real tool needs it, and walks must not overflow. */
export const MAX_SCHEMA_DEPTH = 200;

/** Largest tool schema accepted, in characters of JSON. */
export const MAX_SCHEMA_TEXT_LENGTH = 262_144;

/** Keywords whose values are data, never schemas. */
export const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples']);

/** What one walk over a schema finds. */
export interface SchemaSurvey {
  /** The objects that may be schemas: all but data under {@link DATA_KEYWORDS}. */
  readonly objects: readonly JsonRecord[];
  /** Its length as JSON text, escapes aside. */
  readonly chars: number;
  /** Whether any of `objects` has a `pattern` or `patternProperties`. */
  readonly patterns: boolean;
}

/**
 * Surveys `root` without writing it out, in one pass over its containers;
 * one met twice (shared or cyclic, which only an in-process server can
 * send, and the canonical text refuses) is counted once.
 */
export function surveySchema(root: unknown): SchemaSurvey {
  const objects: JsonRecord[] = [];
  let chars = 0;
  let patterns = false;
  // Parallel stacks, not tuples: this runs over every listed schema at connect.
  const nodes: object[] = [];
  const data: boolean[] = [];
  /** Every container queued: one met again (shared, or a cycle) is not walked twice. */
  const seen = new Set<object>();
  /** Counts a scalar at once; queues a container. */
  const take = (value: unknown, inData: boolean): void => {
    if (typeof value === 'string') chars += value.length + 2;
    else if (typeof value !== 'object' || value === null) chars += String(value).length;
    else if (!seen.has(value)) {
      seen.add(value);
      nodes.push(value);
      data.push(inData);
    }
  };
  take(root, false);
  for (let node = nodes.pop(); node !== undefined; node = nodes.pop()) {
    const inData = data.pop() === true;
    let members = 0;
    if (Array.isArray(node)) {
      for (const item of node as unknown[]) {
        members++;
        take(item, inData);
      }
    } else {
      if (!inData) objects.push(node as JsonRecord);
      for (const key in node) {
        if (!Object.hasOwn(node, key)) continue;
        members++;
        chars += key.length + 3;
        if (!inData && (key === 'pattern' || key === 'patternProperties')) patterns = true;
        take((node as JsonRecord)[key], inData || DATA_KEYWORDS.has(key));
      }
    }
    chars += 1 + Math.max(members, 1); // brackets and commas
  }
  return { objects, chars, patterns };
}
