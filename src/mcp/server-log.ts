import type { LoggingLevel, LoggingMessageNotification } from '@modelcontextprotocol/sdk/types.js';
import type { EventRate } from './event-rate.js';
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

function atLeastLevel(level: LoggingLevel, threshold: LoggingLevel): boolean {
  return LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(threshold);
}

function logText(data: unknown): string {
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
 * The event for a server's log message, or undefined when its level is
 * below `threshold` or `rate` admits no more now (it is counted, and the
 * next event says how many were left out). Logger and text are the
 * server's: redacted of its secrets and capped.
 */
export function serverLogEvent(
  message: LoggingMessageNotification['params'],
  threshold: LoggingLevel,
  redactor: SecretRedactor,
  base: { readonly sessionId: string; readonly serverName: string },
  rate: EventRate,
): McpServerLog | undefined {
  if (!atLeastLevel(message.level, threshold)) return undefined;
  const dropped = rate.admit();
  if (dropped === undefined) return undefined;
  return new McpServerLog({
    ...base,
    level: message.level,
    ...(dropped === 0 ? {} : { dropped }),
    ...(message.logger === undefined
      ? {}
      : { logger: serverTextLine(redactor.redact(message.logger), 100) }),
    // Masked before it is capped; the redactor also knows a secret as JSON escapes it.
    message: capLogText(redactor.redact(logText(message.data))),
    createdAt: new Date(),
  });
}
