/**
 * Problems from the issues of a zod schema built by `z.fromJSONSchema`.
 */
import type { z } from 'zod';
import {
  alternativesFinding,
  describeValue,
  enumFinding,
  toProblems,
  typeFinding,
  valueAt,
  type ArgumentPath,
  type ArgumentProblem,
  type Finding,
} from './issues.js';
import { isJsonObject } from './json.js';

const SAFE_INTEGER_BOUND = Number.MAX_SAFE_INTEGER;

/**
 * Problems from zod issues. Parse with `reportInput: true` so each issue
 * carries the value it judged.
 */
export function problemsFromZod(
  issues: readonly z.core.$ZodIssue[],
  root: unknown,
): ArgumentProblem[] {
  return toProblems(zodFindings(issues, [], root));
}

function zodFindings(
  issues: readonly z.core.$ZodIssue[],
  base: ArgumentPath,
  root: unknown,
): Finding[] {
  return issues.flatMap((issue) => zodFinding(issue, base, root));
}

function zodFinding(issue: z.core.$ZodIssue, base: ArgumentPath, root: unknown): Finding[] {
  const path: ArgumentPath = [...base, ...issue.path.map(toSegment)];
  const value = 'input' in issue ? issue.input : valueAt(root, path);
  // Arguments are JSON, so "nothing" at a path means a missing property or item.
  if (value === undefined && path.length > 0)
    return [invalidTypeFinding(path, 'nonoptional', value)];
  switch (issue.code) {
    case 'invalid_type':
      return [invalidTypeFinding(path, issue.expected, value)];
    case 'too_small':
    case 'too_big':
      return [sizeFinding(path, issue, value)];
    case 'invalid_format':
      if (issue.format === 'regex' && 'pattern' in issue && typeof issue.pattern === 'string') {
        return [
          {
            path,
            keyword: 'pattern',
            predicate: `must match ${issue.pattern}; received ${describeValue(value)}`,
          },
        ];
      }
      return [
        {
          path,
          keyword: 'format',
          predicate: `must be a valid ${issue.format}; received ${describeValue(value)}`,
        },
      ];
    case 'invalid_value':
      return [enumFinding(path, issue.values, value)];
    case 'unrecognized_keys':
      return issue.keys.map((key) => ({
        path: [...path, key],
        keyword: 'additionalProperties',
        predicate: 'is not an allowed property',
      }));
    case 'invalid_union': {
      if (issue.errors.length === 0) {
        return [
          {
            path,
            keyword: 'oneOf',
            predicate: 'must match exactly one alternative, but matches more than one',
          },
        ];
      }
      // zod reports each alternative's issues relative to the union's own path.
      const alternatives = issue.errors.map((list) => zodFindings(list, path, root));
      const keyword = issue.inclusive === false ? 'oneOf' : 'anyOf';
      return [alternativesFinding(path, keyword, value, alternatives)];
    }
    case 'custom': {
      const duplicate = /index (\d+) duplicates the one at index (\d+)/.exec(issue.message);
      if (duplicate !== null) {
        const arrayPath = path.slice(0, -1);
        return [
          {
            path: arrayPath,
            keyword: 'uniqueItems',
            predicate: `must not repeat items; item ${duplicate[1] ?? '?'} equals item ${duplicate[2] ?? '?'}`,
          },
        ];
      }
      return [{ path, keyword: 'custom', predicate: `is invalid: ${issue.message}` }];
    }
    default:
      return [{ path, keyword: issue.code, predicate: `is invalid: ${issue.message}` }];
  }
}

function toSegment(key: PropertyKey): string | number {
  return typeof key === 'symbol' ? String(key) : key;
}

function invalidTypeFinding(path: ArgumentPath, expected: string, value: unknown): Finding {
  if (value === undefined && path.length > 0) {
    const last = path[path.length - 1];
    if (typeof last === 'number') {
      return {
        path: path.slice(0, -1),
        keyword: 'minItems',
        predicate: `must have an item at index ${last}`,
      };
    }
    return { path, keyword: 'required', predicate: 'is required' };
  }
  if (expected === 'never') return { path, keyword: 'false', predicate: 'is not allowed here' };
  return typeFinding(path, [expected], value);
}

function sizeFinding(
  path: ArgumentPath,
  issue: z.core.$ZodIssueTooSmall | z.core.$ZodIssueTooBig,
  value: unknown,
): Finding {
  const small = issue.code === 'too_small';
  const bound = Number(small ? issue.minimum : issue.maximum);
  const received = describeValue(value);
  switch (issue.origin) {
    case 'string':
      return {
        path,
        keyword: small ? 'minLength' : 'maxLength',
        predicate: `must be at ${small ? 'least' : 'most'} ${bound} character${bound === 1 ? '' : 's'} long; received ${received}`,
      };
    case 'array':
    case 'set':
      return {
        path,
        keyword: small ? 'minItems' : 'maxItems',
        predicate: `must have at ${small ? 'least' : 'most'} ${bound} item${bound === 1 ? '' : 's'}; received ${Array.isArray(value) ? value.length : received}`,
      };
    case 'object':
      return {
        path,
        keyword: small ? 'minProperties' : 'maxProperties',
        predicate: `must have at ${small ? 'least' : 'most'} ${bound} propert${bound === 1 ? 'y' : 'ies'}; received ${isJsonObject(value) ? Object.keys(value).length : received}`,
      };
    default: {
      if (Math.abs(bound) === SAFE_INTEGER_BOUND) {
        return {
          path,
          keyword: 'type',
          predicate: `must be an integer within ±${SAFE_INTEGER_BOUND} (larger ones lose precision in JavaScript); received ${received}`,
        };
      }
      const operator = small ? (issue.inclusive ? '>=' : '>') : issue.inclusive ? '<=' : '<';
      const keyword = small
        ? issue.inclusive
          ? 'minimum'
          : 'exclusiveMinimum'
        : issue.inclusive
          ? 'maximum'
          : 'exclusiveMaximum';
      return { path, keyword, predicate: `must be ${operator} ${bound}; received ${received}` };
    }
  }
}
