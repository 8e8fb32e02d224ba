import type { LoggingLevel, LoggingMessageNotification } from '@modelcontextprotocol/sdk/types.js';
import { MASK_MARGIN, maskedHead } from '../core/errors.js';
import { jsonHead, type JsonHead } from '../core/json-head.js';
import { sliceSafe } from '../core/well-formed.js';
import { McpServerLog } from './events.js';
import type { SecretRedactor } from './redact.js';
import { serverTextLine } from './server-text.js';

/** Default of `McpIntegrationSectionOptions.serverLogLevel`. */
export const DEFAULT_SERVER_LOG_LEVEL: LoggingLevel = 'info';
/** Longest server log message kept in an `McpServerLog` event. */
const MAX_LOG_TEXT = 8_192;
export const LOG_LEVELS: readonly LoggingLevel[] = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
];

/** Whether a message at `level` is published under the section's `threshold` (`serverLogLevel`). */
export function isLogged(level: LoggingLevel, threshold: LoggingLevel): boolean {
  return LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(threshold);
}

/**
 * Most characters of a log message's data written as JSON: what an event
 * keeps and what masking looks at past it (`maskedHead`); the rest is not
 * written at all.
 */
const MAX_LOG_JSON = MAX_LOG_TEXT + MASK_MARGIN + 1;

/**
 * A log message's data as text: a string as it is, anything else as JSON,
 * written only as far as an event can keep it (`whole` false when cut).
 */
export function logText(data: unknown): JsonHead {
  if (typeof data === 'string') return { text: data, whole: true };
  try {
    return (
      jsonHead(data, MAX_LOG_JSON) ?? { text: JSON.stringify(data) ?? String(data), whole: true }
    );
  } catch {
    return { text: String(data), whole: true };
  }
}

/**
 * The text of `data` ({@link logText}) masked, then cut to
 * {@link MAX_LOG_TEXT} with the note of the cut (so that capping it again
 * changes nothing); a text far longer is masked only as far as it is kept
 * (`maskedHead`).
 */
export function cappedLogText({ text, whole }: JsonHead, mask: (text: string) => string): string {
  const head = maskedHead(text, mask, MAX_LOG_TEXT);
  const masked = head ?? mask(text);
  if (head === undefined && whole && masked.length <= MAX_LOG_TEXT) return masked;
  const note = whole
    ? `… (${text.length} characters, cut)`
    : `… (more than ${text.length} characters, cut)`;
  return `${sliceSafe(masked, 0, MAX_LOG_TEXT - note.length)}${note}`;
}

/**
 * The event for a server's log message ({@link isLogged} decides whether
 * there is one), with how many were `dropped` just before it. Logger and
 * text are the server's: redacted of its secrets and capped.
 */
export function serverLogEvent(
  message: LoggingMessageNotification['params'],
  redactor: SecretRedactor,
  base: { readonly sessionId: string; readonly serverName: string },
  dropped = 0,
): McpServerLog {
  return new McpServerLog({
    ...base,
    level: message.level,
    ...(dropped === 0 ? {} : { dropped }),
    ...(message.logger === undefined
      ? {}
      : { logger: serverTextLine(message.logger, 100, redactor) }),
    // Masked before it is capped; the redactor also knows a secret as JSON escapes it.
    message: cappedLogText(logText(message.data), (text) => redactor.redact(text)),
    createdAt: new Date(),
  });
}
