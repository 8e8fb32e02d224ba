import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  McpFatalToolError,
  ResourceRegistry,
  Session,
  Tool,
  ToolInvoked,
  ToolResult,
  invokeTool,
  type Slice,
  type ToolContext,
  type ToolHandler,
} from '../../src/index.js';

interface Ledger {
  readonly entries: readonly string[];
}

interface Fixture {
  readonly session: Session;
  readonly ledger: Slice<Ledger>;
  readonly events: ToolInvoked[];
}

function fixture(): Fixture {
  const session = new Session({ sessionId: 'session-1' });
  const ledger = session.slice<Ledger>('ledger', { initial: { entries: ['opening'] } });
  const events: ToolInvoked[] = [];
  session.bus.subscribe(ToolInvoked, (event) => events.push(event));
  return { session, ledger, events };
}

const Entry = z.object({ text: z.string().min(1), count: z.number().int().default(1) });

/** A tool that appends to the ledger, then returns whatever `finish` returns. */
function writer(
  finish: (context: ToolContext) => ToolResult | Promise<ToolResult>,
): Tool<typeof Entry> {
  const handler: ToolHandler<z.output<typeof Entry>, unknown> = (params, context) => {
    context.session.slice<Ledger>('ledger').update((draft) => {
      for (let i = 0; i < params.count; i += 1) draft.entries.push(params.text);
    });
    return finish(context);
  };
  return Tool.create({
    name: 'write',
    description: 'Writes to the ledger',
    params: Entry,
    handler,
  });
}

describe('invokeTool', () => {
  describe('programming errors of the caller', () => {
    it('rejects a call without a session with a TypeError, before the handler runs', async () => {
      let ran = 0;
      const tool = writer(() => {
        ran += 1;
        return ToolResult.ok(null);
      });
      const message =
        'invokeTool(tool, rawArgs, options): options.session must be a Session, received';
      await expect(invokeTool(tool, { text: 'a' }, {} as never)).rejects.toThrow(
        new TypeError(`${message} nothing`),
      );
      await expect(invokeTool(tool, { text: 'a' }, undefined as never)).rejects.toThrow(
        new TypeError(`${message} nothing`),
      );
      await expect(
        invokeTool(tool, { text: 'a' }, { session: { sessionId: 's' } } as never),
      ).rejects.toThrow(new TypeError(`${message} an object`));
      expect(ran).toBe(0);
    });

    it('rejects a deadline that is not a valid Date, or a signal that is not an AbortSignal', async () => {
      let ran = 0;
      const tool = writer(() => {
        ran += 1;
        return ToolResult.ok(null);
      });
      const { session } = fixture();
      const prefix = 'invokeTool(tool, rawArgs, options): options.';
      await expect(
        invokeTool(tool, { text: 'a' }, { session, deadline: 1_800_000_000_000 as never }),
      ).rejects.toThrow(
        new TypeError(
          `${prefix}deadline must be a valid Date (new Date(Date.now() + ms)), received 1800000000000`,
        ),
      );
      await expect(
        invokeTool(tool, { text: 'a' }, { session, deadline: new Date('tomorrow') }),
      ).rejects.toThrow(`${prefix}deadline must be a valid Date`);
      await expect(
        invokeTool(tool, { text: 'a' }, { session, signal: 'stop' as never }),
      ).rejects.toThrow(new TypeError(`${prefix}signal must be an AbortSignal, received "stop"`));
      expect(ran).toBe(0);
      await invokeTool(
        tool,
        { text: 'a', count: 1 },
        { session, signal: new AbortController().signal },
      );
      expect(ran).toBe(1);
    });

    it('rejects something that is not a Tool with a TypeError, publishing nothing', async () => {
      const { session, events, ledger } = fixture();
      const fake = { name: 'write', handler: () => ToolResult.ok(null) };
      await expect(invokeTool(fake as never, { text: 'a' }, { session })).rejects.toThrow(
        new TypeError(
          'invokeTool(tool, rawArgs, options): tool must be a Tool (made by Tool.create), received an object',
        ),
      );
      await expect(invokeTool(undefined as never, {}, { session })).rejects.toThrow(TypeError);
      expect(events).toEqual([]);
      expect(ledger.get().entries).toEqual(['opening']);
    });
  });

  describe('argument validation', () => {
    it('names at most 20 problems, and counts the rest', async () => {
      const { session } = fixture();
      const tool = Tool.create({
        name: 'many',
        description: 'Takes numbers',
        params: z.record(z.string(), z.number()),
        handler: () => ToolResult.ok(null),
      });
      const args = Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`k${i}`, 'x']));
      const result = await invokeTool(tool, args, { session });
      expect(result.message).toMatch(
        /^invalid arguments for tool "many": k0: .*; k19: [^;]*; and 4980 more problems$/,
      );
      expect(result.message.length).toBeLessThan(2_000);
    });

    it('bounds each problem and the whole message, whatever the keys', async () => {
      const { session } = fixture();
      const strict = Tool.create({
        name: 'strict',
        description: 'Takes nothing',
        params: z.strictObject({}),
        handler: () => ToolResult.ok(null),
      });
      const many = Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`key${i}`, 1]));
      const long = { ['k'.repeat(1_000_000)]: 1 };
      for (const args of [many, long]) {
        const result = await invokeTool(strict, args, { session });
        expect(result.message).toMatch(/^invalid arguments for tool "strict": /);
        expect(result.message.length).toBeLessThan(2_100);
      }
    });

    it('returns an error result naming the bad field, without calling the handler', async () => {
      const { session, ledger, events } = fixture();
      let called = false;
      const tool = writer(() => {
        called = true;
        return ToolResult.ok(null);
      });

      const result = await invokeTool(tool, { text: 'hi', count: 'many' }, { session });

      expect(result.success).toBe(false);
      expect(result.message).toMatch(/^invalid arguments for tool "write": count: /);
      expect(result.message).not.toContain('text');
      expect(called).toBe(false);
      expect(ledger.get().entries).toEqual(['opening']);
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({
        toolName: 'write',
        params: { text: 'hi', count: 'many' },
        result,
      });
    });

    it('names every failing field', async () => {
      const { session } = fixture();
      const result = await invokeTool(
        writer(() => ToolResult.ok(null)),
        { text: '', count: 1.5 },
        {
          session,
        },
      );
      expect(result.message).toContain('text: ');
      expect(result.message).toContain('count: ');
    });

    it('reports arguments that are not an object at all', async () => {
      const { session } = fixture();
      const result = await invokeTool(
        writer(() => ToolResult.ok(null)),
        'text=hi',
        { session },
      );
      expect(result.message).toMatch(/^invalid arguments for tool "write": \(arguments\): /);
    });

    it('accepts schemas with async refinements', async () => {
      const { session } = fixture();
      const tool = Tool.create({
        name: 'check',
        description: 'Checks a name',
        params: z.object({
          name: z.string().refine((name) => Promise.resolve(name !== 'taken'), 'is taken'),
        }),
        handler: ({ name }) => ToolResult.ok(name),
      });
      expect(await invokeTool(tool, { name: 'free' }, { session })).toMatchObject({
        success: true,
        value: 'free',
      });
      expect(await invokeTool(tool, { name: 'taken' }, { session })).toMatchObject({
        success: false,
        message: 'invalid arguments for tool "check": name: is taken',
      });
    });

    it('turns a params factory that fails, whatever it throws, into an error result', async () => {
      const { session } = fixture();
      for (const thrown of [new Error('no schema today'), new z.core.$ZodAsyncError()]) {
        const tool = Tool.create({
          name: 'lazy',
          description: 'Has a schema made on first use',
          params: (): z.ZodType<Record<string, unknown>> => {
            throw thrown;
          },
          handler: () => ToolResult.ok(null),
        });
        const result = await invokeTool(tool, {}, { session });
        expect(result.success).toBe(false);
        expect(result.message).toMatch(/^invalid arguments for tool "lazy": /);
      }
    });

    it('runs the checks of a synchronous schema once per call', async () => {
      const { session } = fixture();
      let checks = 0;
      const tool = Tool.create({
        name: 'count',
        description: 'Counts checks',
        params: z.object({ n: z.number().refine(() => (checks += 1) > 0) }),
        handler: () => ToolResult.ok(null),
      });
      await invokeTool(tool, { n: 1 }, { session });
      await invokeTool(tool, { n: 2 }, { session });
      expect(checks).toBe(2);
    });

    it('turns a throwing transform into an error result', async () => {
      const { session, events } = fixture();
      const tool = Tool.create({
        name: 'parse',
        description: 'Parses',
        params: z.object({ raw: z.string().transform((raw) => JSON.parse(raw) as unknown) }),
        handler: () => ToolResult.ok(null),
      });
      const result = await invokeTool(tool, { raw: '{' }, { session });
      expect(result.success).toBe(false);
      expect(result.message).toMatch(/^invalid arguments for tool "parse": /);
      expect(events).toHaveLength(1);
    });
  });

  describe('rollback', () => {
    it('keeps the state changes of a successful call', async () => {
      const { session, ledger } = fixture();
      const result = await invokeTool(
        writer(() => ToolResult.ok('written')),
        { text: 'a', count: 2 },
        {
          session,
        },
      );
      expect(result).toMatchObject({ success: true, value: 'written', message: 'OK' });
      expect(ledger.get().entries).toEqual(['opening', 'a', 'a']);
    });

    it('restores the snapshot when the handler returns success: false', async () => {
      const { session, ledger } = fixture();
      const before = ledger.get();
      const result = await invokeTool(
        writer(() => ToolResult.error('quota exceeded')),
        {
          text: 'a',
        },
        { session },
      );
      expect(result).toMatchObject({ success: false, message: 'quota exceeded' });
      expect(ledger.get()).toBe(before);
    });

    it('turns a thrown error into an error result and restores the snapshot', async () => {
      const { session, ledger, events } = fixture();
      const before = ledger.get();
      const result = await invokeTool(
        writer(() => {
          throw new Error('database is locked');
        }),
        { text: 'a' },
        { session },
      );
      expect(result).toMatchObject({ success: false, message: 'database is locked', value: null });
      expect(ledger.get()).toBe(before);
      expect(events.map((e) => e.result)).toEqual([result]);
    });

    it('handles a rejected promise like a throw', async () => {
      const { session, ledger } = fixture();
      const before = ledger.get();
      const result = await invokeTool(
        writer(() => Promise.reject(new Error('timed out upstream'))),
        { text: 'a' },
        { session },
      );
      expect(result).toMatchObject({ success: false, message: 'timed out upstream' });
      expect(ledger.get()).toBe(before);
    });

    it('gives an error result and restores state when the handler returns a non-ToolResult', async () => {
      const { session, ledger } = fixture();
      const before = ledger.get();
      const lookalike = { message: 'OK', value: 1, success: true };
      const result = await invokeTool(
        writer(() => lookalike as unknown as ToolResult),
        { text: 'a' },
        { session },
      );
      expect(result).toMatchObject({
        success: false,
        message: 'tool "write" returned object, not a ToolResult',
      });
      expect(ledger.get()).toBe(before);

      const nothing = await invokeTool(
        writer(() => undefined as unknown as ToolResult),
        { text: 'a' },
        { session },
      );
      expect(nothing.message).toBe('tool "write" returned undefined, not a ToolResult');
    });

    it("takes another copy of the package's ToolResult (frozen, the same shape) as one", async () => {
      const { session } = fixture();
      class ToolResultOfAnotherCopy {
        constructor(
          readonly message: string,
          readonly value: unknown,
          readonly success: boolean,
        ) {
          Object.freeze(this);
        }
      }
      const result = await invokeTool(
        writer(() => new ToolResultOfAnotherCopy('done', 2, true) as unknown as ToolResult),
        { text: 'a' },
        { session },
      );
      expect(ToolResult.is(result)).toBe(true);
      expect(result).toMatchObject({ success: true, message: 'done', value: 2 });
    });

    it('does not restore private data with the slices', async () => {
      const { session } = fixture();
      const tool = writer((context) => {
        context.session.privateData.add('payroll', 'secret');
        return ToolResult.error('failed after reading');
      });
      await invokeTool(tool, { text: 'a' }, { session });
      expect(session.privateData.sensitivity).toBe('secret');
    });
  });

  describe('the fatal tier', () => {
    it('rolls back, publishes ToolInvoked, then throws McpFatalToolError without the prefix', async () => {
      const { session, ledger, events } = fixture();
      const before = ledger.get();
      const seenAtPublish: Ledger[] = [];
      session.bus.subscribe(ToolInvoked, () => seenAtPublish.push(ledger.get()));

      const call = invokeTool(
        writer(() => ToolResult.error('[FATAL] disk gone')),
        { text: 'a' },
        {
          session,
        },
      );

      const error = await call.then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(McpFatalToolError);
      expect(error).toMatchObject({ message: 'disk gone', toolName: 'write' });
      expect(ledger.get()).toBe(before);
      expect(events).toHaveLength(1);
      expect(events[0]!.result).toMatchObject({ success: false, message: '[FATAL] disk gone' });
      expect(seenAtPublish).toEqual([before]);
    });

    it('treats a thrown error whose message starts with [FATAL] the same way', async () => {
      const { session, ledger, events } = fixture();
      const before = ledger.get();
      await expect(
        invokeTool(
          writer(() => {
            throw new Error('[FATAL] volume unmounted');
          }),
          { text: 'a' },
          { session },
        ),
      ).rejects.toThrow(new McpFatalToolError('write', 'volume unmounted'));
      expect(ledger.get()).toBe(before);
      expect(events).toHaveLength(1);
    });

    it('rethrows an McpFatalToolError thrown by the handler as is', async () => {
      const { session, events } = fixture();
      const fatal = new McpFatalToolError('write', 'out of memory');
      await expect(
        invokeTool(
          writer(() => {
            throw fatal;
          }),
          { text: 'a' },
          { session },
        ),
      ).rejects.toBe(fatal);
      expect(events[0]!.result).toMatchObject({ success: false, message: 'out of memory' });
    });

    it('leaves other errors retryable: FATAL elsewhere in the text is not fatal', async () => {
      const { session } = fixture();
      const result = await invokeTool(
        writer(() => ToolResult.error('not [FATAL] really')),
        {
          text: 'a',
        },
        { session },
      );
      expect(result).toMatchObject({ success: false, message: 'not [FATAL] really' });
    });
  });

  describe('cancellation', () => {
    it('does not start a call whose signal is already aborted, and says why', async () => {
      const { session, ledger } = fixture();
      const before = ledger.get();
      const controller = new AbortController();
      controller.abort(new Error('user pressed stop'));
      let started = false;
      const result = await invokeTool(
        writer(() => {
          started = true;
          return ToolResult.ok(null);
        }),
        { text: 'a' },
        { session, signal: controller.signal },
      );
      expect(started).toBe(false);
      expect(result.message).toBe('tool "write" was not started: cancelled: user pressed stop');
      expect(ledger.get()).toBe(before);
    });

    it('reports a call cancelled while running as cancelled, and rolls back', async () => {
      const { session, ledger } = fixture();
      const before = ledger.get();
      const controller = new AbortController();
      let started!: () => void;
      const running = new Promise<void>((resolve) => (started = resolve));
      const tool = writer(
        ({ signal }) =>
          new Promise<ToolResult>((_resolve, reject) => {
            signal.addEventListener('abort', () => reject(signal.reason as Error));
            started();
          }),
      );

      const call = invokeTool(tool, { text: 'a' }, { session, signal: controller.signal });
      await running;
      expect(ledger.get().entries).toEqual(['opening', 'a']);
      controller.abort(new Error('user pressed stop'));

      expect(await call).toMatchObject({ success: false, message: 'cancelled: user pressed stop' });
      expect(ledger.get()).toBe(before);
    });

    it('gives the handler a signal that is not aborted when the caller passes none', async () => {
      const { session } = fixture();
      let seen: AbortSignal | undefined;
      await invokeTool(
        writer((context) => {
          seen = context.signal;
          return ToolResult.ok(null);
        }),
        { text: 'a' },
        { session },
      );
      expect(seen).toBeInstanceOf(AbortSignal);
      expect(seen!.aborted).toBe(false);
    });
  });

  describe('context and event', () => {
    class Clock {
      now(): number {
        return 42;
      }
    }

    it('gives the handler the session, resources and the callId of the event', async () => {
      const { session, events } = fixture();
      session.resources.set(Clock, new Clock());
      const contexts: ToolContext[] = [];
      await invokeTool(
        writer((context) => {
          contexts.push(context);
          return ToolResult.ok(context.resources.require(Clock).now());
        }),
        { text: 'a' },
        { session },
      );

      const [context] = contexts;
      expect(context!.session).toBe(session);
      expect(context!.resources).toBe(session.resources);
      expect(context!.callId).toBe(events[0]!.callId);
      expect(context).not.toHaveProperty('prompt');
      expect(events[0]!.result.value).toBe(42);
    });

    it('uses the resources and prompt given in the options', async () => {
      const { session } = fixture();
      const resources = new ResourceRegistry();
      const contexts: ToolContext[] = [];
      await invokeTool(
        writer((context) => {
          contexts.push(context);
          return ToolResult.ok(null);
        }),
        { text: 'a' },
        { session, resources, prompt: { ns: 'agent', key: 'main' } },
      );
      expect(contexts[0]!.resources).toBe(resources);
      expect(contexts[0]!.prompt).toEqual({ ns: 'agent', key: 'main' });
    });

    it('gives each call its own callId', async () => {
      const { session, events } = fixture();
      const tool = writer(() => ToolResult.ok(null));
      await invokeTool(tool, { text: 'a' }, { session });
      await invokeTool(tool, { text: 'b' }, { session });
      expect(events).toHaveLength(2);
      expect(events[0]!.callId).not.toBe(events[1]!.callId);
    });

    it("dates ToolInvoked at the call's start, however long masking its data for the event takes", async () => {
      const { session, events } = fixture();
      let handlerStarted = 0;
      const tool = Tool.trusted({
        name: 'masked',
        description: 'Masks its data for events, slowly',
        params: z.object({}),
        handler: () => {
          handlerStarted = Date.now();
          return ToolResult.ok('data');
        },
        maskInEvents: (data) => {
          const until = Date.now() + 25;
          while (Date.now() < until); // masking a large answer takes time
          return data;
        },
      });
      await invokeTool(tool, {}, { session });
      expect(events).toHaveLength(1);
      expect(events[0]!.createdAt.getTime()).toBeLessThanOrEqual(handlerStarted);
    });

    it('publishes ToolInvoked on a bus that cannot say whether anyone listens', async () => {
      const dispatched: object[] = [];
      const bus = {
        subscribe: () => () => undefined,
        subscribeAll: () => () => undefined,
        dispatch: (event: object) => {
          dispatched.push(event);
          return { handlersInvoked: 1, errors: [], ok: true };
        },
      };
      const session = new Session({ bus });
      session.slice<Ledger>('ledger', { initial: { entries: [] } });
      await invokeTool(
        writer(() => ToolResult.ok(null)),
        { text: 'a' },
        { session },
      );
      expect(dispatched).toMatchObject([{ toolName: 'write', params: { text: 'a', count: 1 } }]);
      expect(dispatched[0]).toBeInstanceOf(ToolInvoked);
    });

    it('publishes the parsed params, the result and where the tool came from', async () => {
      const { session, events } = fixture();
      const result = await invokeTool(
        writer(() => ToolResult.ok('done')),
        { text: 'a' },
        {
          session,
        },
      );
      const [event] = events;
      expect(event).toBeInstanceOf(ToolInvoked);
      expect(event).toMatchObject({
        toolName: 'write',
        params: { text: 'a', count: 1 },
        source: 'native',
        sessionId: 'session-1',
      });
      expect(event!.result).toBe(result);
      expect(event).not.toHaveProperty('mcpServer');
      expect(event!.createdAt).toBeInstanceOf(Date);
      expect(event!.durationMs).toBeGreaterThanOrEqual(0);
      expect(Object.isFrozen(event)).toBe(true);
    });

    it('dates the event at the start of the call and gives how long it took', async () => {
      const { session, events } = fixture();
      const startedBefore = Date.now();
      await invokeTool(
        writer(async () => {
          await new Promise((resolve) => setTimeout(resolve, 60));
          return ToolResult.ok(null);
        }),
        { text: 'a' },
        { session },
      );
      const endedAfter = Date.now();
      const [event] = events;
      // Taken when the call ended, the date would be at least 60 ms after its start.
      expect(event!.createdAt.getTime()).toBeGreaterThanOrEqual(startedBefore - 1);
      expect(event!.createdAt.getTime()).toBeLessThan(startedBefore + 40);
      expect(event!.durationMs).toBeGreaterThanOrEqual(55);
      expect(event!.createdAt.getTime() + event!.durationMs).toBeLessThanOrEqual(endedAfter + 2);
    });

    it('names the server and the original name for MCP tools', async () => {
      const { session, events } = fixture();
      const bridged = Tool.create({
        name: 'files_read_file',
        description: 'Reads a file',
        params: z.object({ path: z.string() }),
        origin: { kind: 'mcp', server: 'files', originalName: 'read_file' },
        handler: () => ToolResult.ok(''),
      });
      await invokeTool(bridged, { path: 'a.txt' }, { session });
      expect(events[0]).toMatchObject({
        toolName: 'files_read_file',
        source: 'mcp',
        mcpServer: 'files',
        originalName: 'read_file',
      });
    });

    it.each([
      ['an object without a prototype', () => Object.create(null) as unknown],
      [
        'an error whose message getter throws',
        () =>
          Object.defineProperty(new Error(), 'message', {
            get: () => {
              throw new Error('no');
            },
          }),
      ],
      ['a symbol', () => Symbol('odd') as unknown],
    ])(
      'turns a throw of %s into an error result, after rollback and ToolInvoked',
      async (_, thrown) => {
        const { session, ledger, events } = fixture();
        const result = await invokeTool(
          writer(() => {
            throw thrown();
          }),
          { text: 'a' },
          { session },
        );
        expect(result.success).toBe(false);
        expect(typeof result.message).toBe('string');
        expect(ledger.get().entries).toEqual(['opening']);
        expect(events.map((event) => event.result.success)).toEqual([false]);
        // The call is over: a later write is nobody's to undo.
        ledger.update((draft) => {
          draft.entries.push('later');
        });
        expect(ledger.get().entries).toEqual(['opening', 'later']);
      },
    );

    it('cancels with a reason whose prototype cannot be read, after rollback and ToolInvoked', async () => {
      const { session, ledger, events } = fixture();
      const controller = new AbortController();
      const unreadable = new Proxy(
        {},
        {
          getPrototypeOf() {
            throw new Error('no prototype');
          },
        },
      );
      const result = await invokeTool(
        writer(() => {
          controller.abort(unreadable);
          throw new Error('stopped');
        }),
        { text: 'a' },
        { session, signal: controller.signal },
      );
      expect([result.success, result.message]).toEqual([false, 'cancelled: aborted']);
      expect(ledger.get().entries).toEqual(['opening']);
      expect(events).toHaveLength(1);
    });

    it('runs ToolInvoked reducers, so slices can record calls', async () => {
      const { session } = fixture();
      const calls = session.slice('calls', { initial: { names: [] as string[] } });
      calls.on(ToolInvoked, (draft, event) => {
        draft.names.push(`${event.toolName}:${event.result.success}`);
      });
      await invokeTool(
        writer(() => ToolResult.ok(null)),
        { text: 'a' },
        { session },
      );
      await invokeTool(
        writer(() => ToolResult.error('no')),
        { text: 'a' },
        { session },
      );
      expect(calls.get().names).toEqual(['write:true', 'write:false']);
    });
  });
});

describe('invokeTool with a deadline', () => {
  function waiting(seen: ToolContext[]): Tool {
    return Tool.create({
      name: 'wait',
      description: 'Waits until cancelled.',
      params: z.object({}),
      handler: (_params, context) => {
        seen.push(context);
        return new Promise((_resolve, reject) => {
          context.signal.addEventListener('abort', () => reject(context.signal.reason as Error));
        });
      },
    });
  }

  it('refuses a call that would start after its deadline, without running the handler', async () => {
    const { session, events } = fixture();
    const seen: ToolContext[] = [];
    const deadline = new Date(Date.now() - 1);
    const result = await invokeTool(waiting(seen), {}, { session, deadline });
    expect(result.success).toBe(false);
    expect(result.message).toBe(
      `tool "wait" was not started: its deadline ${deadline.toISOString()} had passed`,
    );
    expect(seen).toEqual([]);
    expect(events).toHaveLength(1);
  });

  it('gives the handler the deadline and aborts its signal there', async () => {
    const { session } = fixture();
    const seen: ToolContext[] = [];
    const deadline = new Date(Date.now() + 50);
    const caller = new AbortController();
    const result = await invokeTool(
      waiting(seen),
      {},
      { session, deadline, signal: caller.signal },
    );
    expect(seen[0]?.deadline).toBe(deadline);
    expect(caller.signal.aborted).toBe(false); // the caller's own signal is left alone
    expect(result).toMatchObject({
      success: false,
      message: `cancelled: its deadline ${deadline.toISOString()} passed`,
    });
  });

  it('still ends a call when the caller cancels before the deadline', async () => {
    const { session } = fixture();
    const caller = new AbortController();
    const call = invokeTool(
      waiting([]),
      {},
      {
        session,
        deadline: new Date(Date.now() + 60_000),
        signal: caller.signal,
      },
    );
    caller.abort(new Error('user stopped it'));
    expect((await call).message).toBe('cancelled: user stopped it');
  });
});
