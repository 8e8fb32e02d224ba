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
  /** Those of `objects` with a local `$ref`, `$dynamicRef` or `$recursiveRef`. */
  readonly referring: readonly JsonRecord[];
  /** Its length as JSON text, escapes aside; past the limit, where the walk stopped. */
  readonly chars: number;
  /** Whether any of `objects` has a `pattern` or `patternProperties`. */
  readonly patterns: boolean;
}

/**
 * Surveys `root` without writing it out, in one pass over its containers,
 * counted as JSON would write them: a container met twice (shared, or a
 * cycle, which only an in-process server can send) is counted twice, so a
 * cycle or a huge schema ends the walk at {@link MAX_SCHEMA_TEXT_LENGTH}.
 */
export function surveySchema(root: unknown): SchemaSurvey {
  const objects: JsonRecord[] = [];
  const referring: JsonRecord[] = [];
  let chars = 0;
  let patterns = false;
  // Containers still to walk, and whether each is data (under enum, const...).
  if (typeof root !== 'object' || root === null) {
    return { objects, referring, chars: scalarChars(root), patterns };
  }
  const nodes: object[] = [root];
  const inData: boolean[] = [false];
  while (nodes.length > 0 && chars <= MAX_SCHEMA_TEXT_LENGTH) {
    const node = nodes.pop() as object;
    const data = inData.pop() === true;
    let members = 0;
    if (Array.isArray(node)) {
      members = node.length;
      for (let index = 0; index < members; index++) {
        const item: unknown = node[index];
        if (typeof item !== 'object' || item === null) chars += scalarChars(item);
        else {
          nodes.push(item);
          inData.push(data);
        }
      }
    } else {
      if (!data) objects.push(node as JsonRecord);
      let refers = false;
      for (const key in node) {
        if (!Object.hasOwn(node, key)) continue;
        members++;
        chars += key.length + 3;
        const value = (node as JsonRecord)[key];
        if (!data && key.charCodeAt(0) === 36 /* $ */ && REFERENCE_KEYWORDS.has(key)) {
          refers ||= typeof value === 'string' && value.startsWith('#');
        }
        if (!data && (key === 'pattern' || key === 'patternProperties')) patterns = true;
        if (typeof value !== 'object' || value === null) chars += scalarChars(value);
        else {
          nodes.push(value);
          inData.push(data || DATA_KEYWORDS.has(key));
        }
      }
      if (refers) referring.push(node as JsonRecord);
    }
    chars += 1 + Math.max(members, 1); // brackets and commas
  }
  return { objects, referring, chars, patterns };
}

/** The length of a scalar as JSON text, escapes aside. */
function scalarChars(value: unknown): number {
  return typeof value === 'string' ? value.length + 2 : String(value).length;
}

/** Keywords that refer to another schema for the same value. */
export const REFERENCE_KEYWORDS = new Set(['$ref', '$dynamicRef', '$recursiveRef']);
