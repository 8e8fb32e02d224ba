import { z } from 'zod';
import { describeSent } from '../core/describe-sent.js';
import { sliceSafe } from '../core/well-formed.js';

/** Longest quoted text a definition error shows. */
const MAX_QUOTED_LENGTH = 60;

/**
 * A short account of a value given where a prompt definition expected
 * something else, for an error message: a zod schema by its type, an
 * instance by its class, anything else as {@link describeSent} does. Never
 * the value whole: a misplaced object may be large or hold secrets.
 */
export function describeValue(value: unknown): string {
  if (value instanceof z.ZodType) return `a zod ${value._zod.def.type} schema`;
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const name = className(value);
    if (name !== undefined) return `an instance of ${name}`;
  }
  return describeSent(value);
}

/** The name of an object's class, when it has one of its own and it reads safely. */
function className(value: object): string | undefined {
  try {
    const prototype: unknown = Object.getPrototypeOf(value);
    if (prototype === null || prototype === Object.prototype) return undefined;
    const name: unknown = (prototype as { constructor?: { name?: unknown } }).constructor?.name;
    return typeof name === 'string' && /^[A-Za-z_$][\w$]{0,63}$/.test(name) ? name : undefined;
  } catch {
    return undefined; // a proxy or a getter that throws: described as an object
  }
}

/** `text` as JSON, cut when long: for text the application wrote, such as a title. */
export function quoteShort(text: string): string {
  if (text.length <= MAX_QUOTED_LENGTH) return JSON.stringify(text);
  return `${JSON.stringify(sliceSafe(text, 0, MAX_QUOTED_LENGTH))}… (${text.length} characters)`;
}

/** Classes of this package whose instances a prompt definition takes, checked by shape. */
const CHECKED_BY_SHAPE = new Set(['Tool', 'MarkdownSection', 'Section', 'McpIntegrationSection']);

/**
 * {@link describeValue} of an item refused as a tool or a section: one of
 * those classes' instances was refused by shape, so another version of the
 * package made it, and the message says so.
 */
export function describeRefusedItem(value: unknown): string {
  const name = typeof value === 'object' && value !== null ? className(value) : undefined;
  if (name !== undefined && CHECKED_BY_SHAPE.has(name)) {
    return `an instance of ${name} from another version of mcp-sections, whose members differ (use one version of the package)`;
  }
  return describeValue(value);
}
