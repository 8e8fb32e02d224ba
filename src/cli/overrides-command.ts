/**
 * `overrides seed <module>`: writes an overrides file holding a template's
 * current section bodies and tool descriptions, each with its content hash,
 * for a person (or an optimiser) to edit from there.
 *
 * The module is imported as it is: compiled JavaScript (`.js`, `.mjs`)
 * always; TypeScript when the CLI runs under a loader that can import it
 * (`node --import tsx …/main.js`).
 */
import { access } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { PromptOverridesError, messageOf } from '../core/errors.js';
import { seedPromptOverrides, walkSections } from '../prompt/overrides/descriptor.js';
import {
  FilePromptOverridesStore,
  type OverridesFileFormat,
} from '../prompt/overrides/file-store.js';
import { DEFAULT_OVERRIDES_TAG } from '../prompt/overrides/prompt-overrides.js';
import type { PromptTemplate } from '../prompt/prompt-template.js';
import { SECTION_KEY_PATTERN } from '../prompt/section.js';
import type { CommandContext } from './commands.js';
import { CliError, EXIT_CODES, oneLine, type ExitCode } from './exit-codes.js';
import { terminalJson } from './terminal-text.js';

/** What `overrides seed` is asked to do. */
export interface SeedCommandOptions {
  /** The module exporting the template. */
  readonly module: string;
  /** The store's directory. */
  readonly dir: string;
  /** The export to seed from. @default the default export, else the one template exported */
  readonly exportName?: string;
  /** @default 'latest' */
  readonly tag?: string;
  /** @default 'json' */
  readonly format?: OverridesFileFormat;
  /** Connect the template's MCP sections first, so their tools are seeded too. @default false */
  readonly connect?: boolean;
  /** Replace an existing file. @default false */
  readonly force?: boolean;
}

/** The `overrides seed --json` document. */
export interface SeedReport {
  readonly file: string;
  readonly ns: string;
  readonly key: string;
  readonly tag: string;
  /** Paths of the sections seeded. */
  readonly sections: readonly string[];
  /** Names of the tools seeded. */
  readonly tools: readonly string[];
}

/** `overrides seed <module> --dir <dir>`: see the module comment. */
export async function seedCommand(
  options: SeedCommandOptions,
  context: CommandContext,
): Promise<ExitCode> {
  const tag = options.tag ?? DEFAULT_OVERRIDES_TAG;
  const format = options.format ?? 'json';
  if (format !== 'json' && format !== 'yaml') {
    throw usage(`--format must be json or yaml, received ${JSON.stringify(format)}`);
  }
  if (!SECTION_KEY_PATTERN.test(tag)) {
    throw usage(`--tag ${JSON.stringify(tag)} must match ${SECTION_KEY_PATTERN.source}`);
  }
  const template = pickTemplate(await importModule(options.module), options);
  const ref = { ns: template.ns, key: template.key, tag };
  const store = new FilePromptOverridesStore({ dir: options.dir, format });
  const existing = await configErrors(() => store.locate(ref, { signal: context.signal }));
  if (existing !== undefined && options.force !== true) {
    throw new CliError(EXIT_CODES.usage, `${existing} exists; pass --force to replace it`);
  }
  const seed = await withConnectedSections(template, options.connect === true, context, () =>
    configErrors(() => Promise.resolve(seedPromptOverrides(template, { tag }))),
  );
  await configErrors(() => store.upsert(seed, { signal: context.signal }));
  const file = (await store.locate(ref)) ?? '';
  const report: SeedReport = {
    file,
    ns: seed.ns,
    key: seed.key,
    tag: seed.tag,
    sections: Object.keys(seed.sections),
    tools: Object.keys(seed.tools),
  };
  if (context.json) {
    context.io.stdout.write(`${terminalJson(report)}\n`);
  } else {
    const count = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;
    context.io.stderr.write(
      `wrote ${file}: ${count(report.sections.length, 'section')}, ${count(report.tools.length, 'tool')} (tag ${tag})\n`,
    );
  }
  return EXIT_CODES.ok;
}

async function importModule(specifier: string): Promise<Record<string, unknown>> {
  const file = path.resolve(specifier);
  try {
    await access(file);
  } catch {
    throw new CliError(EXIT_CODES.config, `cannot load ${file}: no such file`);
  }
  try {
    return (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (error) {
    const code = (error as { code?: unknown } | undefined)?.code;
    if (code === 'ERR_UNKNOWN_FILE_EXTENSION') {
      throw new CliError(
        EXIT_CODES.config,
        `cannot load ${file}: this Node cannot import ${path.extname(file)} files by itself; ` +
          'point at the compiled .js, or run the CLI under tsx (node --import tsx <path to mcp-sections main.js> ...)',
        { cause: error },
      );
    }
    throw new CliError(EXIT_CODES.config, `cannot load ${file}: ${oneLine(messageOf(error))}`, {
      cause: error,
    });
  }
}

/**
 * The template to seed from: the named export, or the default export, or
 * the only template among the exports. A `Prompt` stands for its template.
 * Recognised by shape, not class: the module may import another copy of
 * the library.
 */
function pickTemplate(
  exports: Record<string, unknown>,
  options: SeedCommandOptions,
): PromptTemplate<unknown> {
  const file = path.resolve(options.module);
  if (options.exportName !== undefined) {
    if (!Object.hasOwn(exports, options.exportName)) {
      throw new CliError(
        EXIT_CODES.config,
        `${file} has no export "${options.exportName}"; its exports: ${Object.keys(exports).join(', ') || '(none)'}`,
      );
    }
    const template = asTemplate(exports[options.exportName]);
    if (template === undefined) {
      throw new CliError(
        EXIT_CODES.config,
        `export "${options.exportName}" of ${file} is not a PromptTemplate or a Prompt`,
      );
    }
    return template;
  }
  const fromDefault = asTemplate(exports.default);
  if (fromDefault !== undefined) return fromDefault;
  const found = Object.keys(exports).filter((name) => asTemplate(exports[name]) !== undefined);
  if (found.length === 1) return asTemplate(exports[found[0]!])!;
  throw new CliError(
    EXIT_CODES.config,
    found.length === 0
      ? `${file} exports no PromptTemplate or Prompt`
      : `${file} exports ${found.length} templates (${found.join(', ')}); name one with --export`,
  );
}

function asTemplate(value: unknown): PromptTemplate<unknown> | undefined {
  if (isTemplate(value)) return value;
  if (typeof value === 'object' && value !== null && 'template' in value) {
    const inner = value.template;
    if (isTemplate(inner)) return inner;
  }
  return undefined;
}

function isTemplate(value: unknown): value is PromptTemplate<unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Partial<Record<keyof PromptTemplate<unknown>, unknown>>;
  return (
    typeof candidate.ns === 'string' &&
    typeof candidate.key === 'string' &&
    Array.isArray(candidate.sections)
  );
}

interface Connectable {
  connect(options: { signal?: AbortSignal }): Promise<void>;
  disconnect(): Promise<void>;
}

/** Runs `work` with the template's MCP sections connected (when asked), disconnecting them on every path. */
async function withConnectedSections<T>(
  template: PromptTemplate<unknown>,
  connect: boolean,
  context: CommandContext,
  work: () => Promise<T>,
): Promise<T> {
  if (!connect) return work();
  const connectable: Connectable[] = [];
  walkSections(template.sections, (section) => {
    const candidate = section as unknown as Partial<Connectable>;
    if (typeof candidate.connect === 'function' && typeof candidate.disconnect === 'function') {
      connectable.push(candidate as Connectable);
    }
  });
  try {
    context.progress.start('connecting the MCP sections');
    await Promise.all(connectable.map((section) => section.connect({ signal: context.signal })));
    return await work();
  } finally {
    context.progress.stop();
    await Promise.allSettled(connectable.map((section) => section.disconnect()));
  }
}

async function configErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof PromptOverridesError) {
      throw new CliError(EXIT_CODES.config, error.message, { cause: error });
    }
    throw error;
  }
}

function usage(message: string): CliError {
  return new CliError(EXIT_CODES.usage, `${message} (run mcp-sections --help)`);
}
