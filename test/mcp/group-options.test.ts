/**
 * The options a section is made with are checked before anything is
 * built: a misspelled option was ignored (and changed what the section
 * did), a reconnection policy of -1 attempts gave a healthy server up, and
 * a missing session failed later with an internal TypeError.
 */
import { describe, expect, it } from 'vitest';
import {
  McpClientGroup,
  McpConfigError,
  McpIntegrationSection,
  type McpIntegrationSectionOptions,
  Session,
} from '../../src/index.js';

const servers = [{ name: 'a', transport: { type: 'stdio' as const, command: 'node' } }];

function refusal(options: unknown): McpConfigError {
  try {
    new McpIntegrationSection(options as McpIntegrationSectionOptions);
  } catch (error) {
    expect(error).toBeInstanceOf(McpConfigError);
    return error as McpConfigError;
  }
  throw new Error('the options were accepted');
}

describe('section options', () => {
  it('refuses a misspelled option, with what it probably meant', () => {
    const error = refusal({ servers, session: new Session(), onConectError: 'report' });
    expect(error.field).toBe('onConectError');
    expect(error.message).toMatch(
      /^section "mcp\.integrations": option onConectError is not a known key; did you mean onConnectError\? Expected one of: servers, session, /,
    );
  });

  it.each([
    [
      { onConnectError: 'Report' },
      'onConnectError',
      'must be "throw" or "report", received "Report"',
    ],
    [{ serverLogLevel: 'verbose' }, 'serverLogLevel', 'must be one of debug, info,'],
    [
      { reconnect: { attempts: -1, baseDelayMs: 10 } },
      'reconnect.attempts',
      'must be a whole number of at least 0, received -1',
    ],
    [
      { reconnect: { attempts: Number.NaN, baseDelayMs: 10 } },
      'reconnect.attempts',
      'received NaN',
    ],
    [{ reconnect: { attempts: 1.5, baseDelayMs: 10 } }, 'reconnect.attempts', 'a whole number'],
    [
      { reconnect: { attempts: 2, baseDelay: 10 } },
      'reconnect.baseDelay',
      'did you mean baseDelayMs?',
    ],
    [{ retry: { minDelayMs: -5 } }, 'retry.minDelayMs', 'a number of milliseconds of at least 0'],
    [{ retry: { enabled: 'yes' } }, 'retry.enabled', 'must be true or false'],
    [{ pool: {} }, 'pool', 'must be an McpConnectionPool'],
    [{ sampling: 'auto' }, 'sampling', 'must be a function'],
  ])('refuses %j, naming %s', (option, field, text) => {
    const error = refusal({ servers, session: new Session(), ...option });
    expect(error.field).toBe(field);
    expect(error.message).toContain(`option ${field} `);
    expect(error.message).toContain(text);
  });

  it('refuses options without a session, or no options at all, before anything runs', () => {
    expect(refusal({ servers }).message).toBe(
      'section "mcp.integrations": option session must be a Session (new Session()), received nothing',
    );
    expect(refusal(undefined).message).toContain('options must be an object');
  });

  it('names the section by its key, and checks a group made directly the same way', () => {
    expect(
      refusal({ servers, session: new Session(), key: 'tools.mcp', tite: 'x' }).message,
    ).toContain('section "tools.mcp": option tite is not a known key; did you mean title?');
    expect(
      () => new McpClientGroup({ servers, session: new Session(), title: 'x' } as never),
    ).toThrow('group "mcp.integrations": option title is not a known key');
  });

  it('takes every option it documents', () => {
    const section = new McpIntegrationSection({
      servers,
      session: new Session(),
      key: 'k',
      onConnectError: 'report',
      serverLogLevel: 'warning',
      reconnect: { attempts: 0, baseDelayMs: 0, maxDelayMs: 10 },
      retry: { enabled: false, minDelayMs: 0, maxDelayMs: 0 },
      sampling: () => Promise.reject(new Error('no')),
      title: 'T',
      template: '${server_names}',
      inventoryDescriptionLength: 10,
      acceptsOverrides: true,
      summary: '${server_names}',
    });
    expect(section.key).toBe('k');
  });
});
