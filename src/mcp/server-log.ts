import type { LoggingLevel, LoggingMessageNotification } from '@modelcontextprotocol/sdk/types.js';
import { McpServerLog } from './events.js';
import type { SecretRedactor } from './redact.js';
import { serverTextLine } from './server-text.js';

/** Default of `McpIntegrationSectionOptions.serverLogLevel`. */
export const DEFAULT_SERVER_LOG_LEVEL: LoggingLevel = 'info';
/** Longest server log message kept in an `McpServerLog` event. */
const MAX_LOG_TEXT = 8_192;
const LOG_LEVELS: readonly LoggingLevel[] = [
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

/** A log message's data as text: a string as it is, anything else as JSON. */
export function logText(data: unknown): string {
  if (typeof data === 'string') return data;
  try {
    return JSON.stringify(data) ?? String(data);
  } catch {
    return String(data);
  }
}

function capLogText(text: string): string {
  return text.length <= MAX_LOG_TEXT
    ? text
    : `${text.slice(0, MAX_LOG_TEXT)}… (${text.length} characters, cut)`;
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
    message: capLogText(redactor.redact(logText(message.data))),
    createdAt: new Date(),
  });
}
