/**
 * The wording of argument problems: a problem has a path into the
 * arguments and a sentence that names the field, what it must be, and what
 * was received. `output-units.ts` turns the validator's errors into these
 * findings.
 */

/** A path into the arguments: property names and array indexes. */
export type ArgumentPath = readonly (string | number)[];

/** One thing wrong with the arguments. */
export interface ArgumentProblem {
  /** Where, from the arguments object down. */
  readonly path: ArgumentPath;
  /** The JSON Schema keyword that failed, e.g. `type` or `required`. */
  readonly keyword: string;
  /** The full sentence, e.g. `"user.age" must be an integer; received a string ("5")`. */
  readonly message: string;
}

/** A problem before it is put into words: the subject is added last. */
export interface Finding {
  readonly path: ArgumentPath;
  readonly keyword: string;
  /** What follows the subject, e.g. `must be an integer; received …`. */
  readonly predicate: string;
  /** For `type` findings: the names expected, so alternatives can merge. */
  readonly expected?: readonly string[];
}

const MAX_SHOWN = 8;

/** The subject of a sentence about `path`: `the arguments`, `"user.tags[0]"` or `"items[\"a.b\"]"`. */
export function subjectOf(path: ArgumentPath): string {
  if (path.length === 0) return 'the arguments';
  let label = '';
  for (const segment of path) {
    if (typeof segment === 'number') label += `[${segment}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(segment)) label += label === '' ? segment : `.${segment}`;
    else label += `[${JSON.stringify(segment)}]`;
  }
  return JSON.stringify(label);
}

/** A short rendering of a received value: `"abc"`, `5`, `an array of 2 items`. */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') {
    return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  }
  if (value === undefined) return 'nothing';
  if (value === null || typeof value === 'number' || typeof value === 'boolean') {
    return String(value);
  }
  if (typeof value !== 'object') return typeof value;
  return Array.isArray(value) ? `an array of ${counted(value.length, 'item')}` : 'an object';
}

/** A received value with its JSON type: `a string ("5")`, `null`. */
export function describeTyped(value: unknown): string {
  if (value === null || value === undefined || typeof value === 'object') {
    return describeValue(value);
  }
  const kind = typeof value;
  const article =
    kind === 'string' || kind === 'number' || kind === 'boolean' ? 'a' : 'a value of type';
  return `${article} ${kind} (${describeValue(value)})`;
}

/** `1 item`, `2 items`, `1 property`, `3 properties`. */
export function counted(count: unknown, noun: string): string {
  const plural = noun.endsWith('y') ? `${noun.slice(0, -1)}ies` : `${noun}s`;
  return `${JSON.stringify(count) ?? 'nothing'} ${count === 1 ? noun : plural}`;
}

const TYPE_PHRASES: Readonly<Record<string, string>> = {
  string: 'a string',
  number: 'a number',
  integer: 'an integer',
  boolean: 'a boolean',
  null: 'null',
  array: 'an array',
  object: 'an object',
};

/** Schema values in a sentence: `"S", "M", "L"`, at most eight of them. */
export function listValues(values: readonly unknown[]): string {
  const shown = values.slice(0, MAX_SHOWN).map((value) => JSON.stringify(value) ?? String(value));
  return values.length > MAX_SHOWN ? `${shown.join(', ')}, …` : shown.join(', ');
}

/**
 * One problem per path and keyword: a validator can report a tuple's length
 * twice, and a summary may restate what its details say.
 */
export function toProblems(findings: readonly Finding[]): ArgumentProblem[] {
  const seen = new Set<string>();
  const problems: ArgumentProblem[] = [];
  for (const { path, keyword, predicate } of findings) {
    const key = `${keyword} ${JSON.stringify(path)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    problems.push({ path, keyword, message: `${subjectOf(path)} ${predicate}` });
  }
  return problems;
}

/** `must be a string or null; received …` for the type names `expected`. */
export function typeFinding(
  path: ArgumentPath,
  expected: readonly string[],
  value: unknown,
): Finding {
  const phrases = [...new Set(expected.map((name) => TYPE_PHRASES[name] ?? name))];
  const last = phrases.pop() ?? 'nothing';
  const phrase = phrases.length === 0 ? last : `${phrases.join(', ')} or ${last}`;
  return {
    path,
    keyword: 'type',
    expected,
    predicate: `must be ${phrase}; received ${describeTyped(value)}`,
  };
}

/** One finding for a failed `anyOf`/`oneOf`, from its alternatives' findings. */
export function alternativesFinding(
  path: ArgumentPath,
  keyword: string,
  value: unknown,
  alternatives: readonly (readonly Finding[])[],
): Finding {
  // Alternatives that differ only by type merge into one: "must be a string or an integer".
  const types = alternatives.map((findings) => (findings.length === 1 ? findings[0] : undefined));
  if (
    types.every(
      (f) =>
        f?.expected !== undefined &&
        f.path.length === path.length &&
        f.path.every((segment, i) => segment === path[i]),
    )
  ) {
    return typeFinding(
      path,
      types.flatMap((f) => f?.expected ?? []),
      value,
    );
  }
  const described = alternatives.slice(0, MAX_SHOWN).map((findings, i) => {
    const parts = findings.slice(0, 2).map((f) => {
      const relative = f.path.slice(path.length);
      return relative.length === 0 ? f.predicate : `${subjectOf(relative)} ${f.predicate}`;
    });
    return `(${i + 1}) ${parts.length > 0 ? parts.join(', ') : 'does not match'}`;
  });
  return {
    path,
    keyword,
    predicate: `must match ${keyword === 'oneOf' ? 'exactly one' : 'at least one'} of ${alternatives.length} alternatives, but: ${described.join('; ')}`,
  };
}

/** The value at `path` under `root`, or undefined. */
export function valueAt(root: unknown, path: ArgumentPath): unknown {
  let current = root;
  for (const segment of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string | number, unknown>)[segment];
  }
  return current;
}
