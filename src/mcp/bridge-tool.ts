import { AsyncLocalStorage } from 'node:async_hooks';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import { withDeadline } from '../core/deadline.js';
import { MASK_MARGIN, maskedQuote, messageOf } from '../core/errors.js';
import { pause } from '../core/pause.js';
import {
  type DataSensitivity,
  MALFORMED_MARKER_SENSITIVITY,
  readPrivateDataMarker,
} from '../core/sensitivity.js';
import {
  callRefusal,
  resolveReach,
  stricterReach,
  type ToolReach,
} from '../isolation/permissions.js';
import type { ToolPermission } from '../config/server-config.js';
import { ownValue } from '../core/own-value.js';
import { isObserved } from '../runtime/event-bus.js';
import type { Session } from '../runtime/session.js';
import { Tool, type ToolAnnotations } from '../tools/tool.js';
import { NEVER_ABORTED } from '../tools/invoke-tool.js';
import { declaresSecretArguments, secretArgumentValues } from '../tools/secret-arguments.js';
import type { ToolContext } from '../tools/tool-context.js';
import { setEventView } from '../tools/event-view.js';
import { ToolResult } from '../tools/tool-result.js';
import { callFailure, noteLossReason } from './call-failure.js';
import { recordEscalation, syncWithStore } from './call-store-sync.js';
import { EventRate, MAX_PROGRESS_EVENTS_PER_SECOND } from './event-rate.js';
import { McpToolProgress, PrivateDataMarkerMalformed } from './events.js';
import {
  callQuoteMask,
  callSecretsSent,
  callTextMask,
  otherCallSecrets,
} from './in-flight-secrets.js';
import { outputSchemaViolation } from './output-check.js';
import type { CallOptions } from './requests.js';
import { DEFAULT_MAX_RESULT_CHARS, limitResult } from './result-limit.js';
import { mapCallResult, type McpToolValue, withMaskedText } from './result-mapping.js';
import { maskStrings, type SecretRedactor } from './redact.js';
import { decideRetry, retryDelayMs, type RetryOptions } from './retry-policy.js';
import { bridgedValidator } from './bridged-validator.js';
import {
  notReconnected,
  type McpServerConnection,
  type McpToolDescription,
} from './server-connection.js';
import type { ServerRoute } from './server-route.js';
import type { ServerTextMasker } from './server-text.js';
import { toAnnotations } from './tool-annotations.js';
import { bridgedDescription } from './tool-naming.js';

/** A bridged MCP tool: params are the server's JSON object arguments. */
export type McpTool = Tool<z.ZodType<Record<string, unknown>>, McpToolValue | null>;

const NO_CALL_OPTIONS: CallOptions = Object.freeze({});

/** Text that needs no masking, as it is. */
const AS_IT_IS = (text: string): string => text;

/** What a bridged tool needs from its section. */
export interface BridgeContext {
  readonly session: Session;
  readonly route: ServerRoute;
  readonly retry: Required<RetryOptions>;
  /**
   * The reach each of the server's tools was bridged with before, by
   * original name, for the session's life: a tool listed again is never
   * looser than that (a server that re-lists its network tool as
   * closed-world, once the session holds private data, still has it
   * refused). Each bridged tool records its own here.
   */
  readonly reaches: Map<string, ToolReach>;
  /**
   * The listing came while the session held private data, and after the
   * server's first one in the session, or in a session with a store (whose
   * earlier lives and other workers saw listings this object never did): a
   * tool it names for the first time (a network tool renamed) is not taken
   * at its word that it is closed-world; only the config's `permissions`
   * can say so. Its word that it reaches the network still counts.
   */
  readonly listedWhilePrivate: boolean;
  /**
   * What masks the listing's text (descriptions, titles, what the
   * validator quotes of a schema): the server's secrets, and the secret
   * arguments of the session's calls in flight when it came
   * (`serverTextMasker`).
   */
  readonly masker: ServerTextMasker;
}

/**
 * A pool call's own check before it is sent: told whether this is the
 * call's retry (the first attempt may have reached the server), it gives
 * the reason to refuse, if any.
 */
export type SendCheck = (retry: boolean) => string | undefined;

/** The extra check of each pool call, by its context: see {@link withSendCheck}. */
const sendChecks = new WeakMap<ToolContext, SendCheck>();

/**
 * @internal `tool` for one call of the connection pool, which chose its
 * section when the call started: `check` is asked with the ratchet, each
 * time the call is about to be sent (a wait for the store, a switch or a
 * reconnect, and a retry, come before), and refuses it when it gives a
 * reason. Only a session with private data moves what the pool chose on.
 */
export function withSendCheck(tool: McpTool, check: SendCheck): McpTool {
  return tool.withHandler((args, context) => {
    sendChecks.set(context, check);
    return tool.handler(args, context);
  });
}

/**
 * Makes a {@link Tool} for one MCP tool. Its validator is built from the
 * server's JSON Schema when the tool is first called (and cached by schema
 * content), so listing a server with many tools stays cheap; the original
 * schema is kept unchanged for `toolDefinitions()`. The server's own
 * secrets are masked in its description and title, in messages that name
 * it, and in what its validator says; its name and schema are identifiers
 * and data, kept as sent. A call's secret arguments (`secret-arguments.ts`)
 * are masked in every text a server writes while it runs and for a grace
 * after (errors, progress, quotes of its data, the log, the descriptions
 * and titles of a listing), and in the text of an answer `ToolInvoked`
 * shows.
 */
export function bridgeTool(
  description: McpToolDescription,
  bridgedName: string,
  context: BridgeContext,
): McpTool {
  const { route, masker } = context;
  const serverName = route.name;
  // The name as shown is masked as the bridged name is: for the server's secrets alone.
  const shown = route.redactor.redact(description.name);
  const call = new BridgedCall(description, bridgedName, shown, context);
  // The name comes from bridgedToolName and the description from
  // bridgedDescription, both valid by construction. The description is
  // masked there, after it is cleaned: masked first, a secret split by
  // invisible characters would be joined up again by the cleaning.
  return Tool.trusted({
    name: bridgedName,
    description: bridgedDescription(serverName, description.name, description.description, masker),
    // Built on the first call: connecting to a server with many tools creates no validator.
    params: () => bridgedValidator(description.inputSchema, serverName, shown, route, masker),
    inputSchema: description.inputSchema,
    annotations: call.annotations,
    // The name is the server's identifier, as sent: lookups (the pool, policies) use it.
    origin:
      shown === description.name
        ? { kind: 'mcp', server: serverName, originalName: description.name }
        : { kind: 'mcp', server: serverName, originalName: description.name, shownName: shown },
    handler: (args, tool) => call.send(args, tool),
    // The call's only writes of its own are its progress reports' reducers.
    writesInCall: () => call.reportsProgress(),
    // Read when a section renders its inventory with private data in the session.
    refusal: () => call.refusal(),
    // Events reach traces, telemetry and stores: the server's secrets are masked there
    // (and the secret arguments an answer echoes: see `#resultOf`).
    ...(route.redactor.hasSecrets
      ? { maskInEvents: (data: unknown) => shownInEvents(data, route.redactor) }
      : {}),
  });
}

/**
 * The server's answer behind a result, kept for its `ToolInvoked` (built
 * only when someone observes it, see {@link setEventView}): the event shows
 * the answer masked before the result limit cuts its text, since a cut may
 * leave a piece of a secret that masking no longer finds whole (the server
 * chooses where its text is cut). Kept cut at the limit plus
 * {@link MASK_MARGIN}: no more of a large answer stays alive with the result.
 */
interface KeptAnswer {
  readonly raw: CallToolResult;
  readonly maxChars: number;
  /** The call's secret argument values, and what masks those of the calls in flight beside it. */
  readonly secrets: readonly string[] | undefined;
  readonly others: ((text: string) => string) | undefined;
}

/**
 * What `ToolInvoked` shows of a bridged call's params or result: the
 * server's secrets masked and, for a result with its `answer`, the secret
 * arguments it echoed (its call's, or another's in flight) masked before
 * its cut.
 */
function shownInEvents(data: unknown, redactor: SecretRedactor, answer?: KeptAnswer): unknown {
  if (!ToolResult.is(data)) return redactor.redactData(data);
  const mask =
    (answer && callTextMask(answer.secrets, redactor, answer.others)) ??
    ((text: string) => redactor.redact(text));
  // A failure's message was masked before its cut already (or is the library's own);
  // a success's is the answer's text, cut: read again from the answer, masked first.
  const shown =
    answer === undefined
      ? data
      : mapCallResult(
          limitResult(withMaskedText(answer.raw, mask, answer.maxChars), answer.maxChars),
        );
  const message = data.success ? mask(shown.message) : redactor.redact(data.message);
  // The value's other strings too (structured content, `_meta`), with the same mask.
  const value =
    data.value === null
      ? null
      : answer === undefined
        ? redactor.redactData(shown.value)
        : maskStrings(shown.value, mask);
  return data.success ? ToolResult.ok(value, message) : ToolResult.error(message, value);
}

/**
 * What one bridged tool does when called: sync with the session's store,
 * check the ratchet, send, map the result, retry once when that is safe.
 * One object per tool, so a connect to many tools makes no closures per step.
 */
class BridgedCall {
  readonly annotations: ToolAnnotations;
  readonly #description: McpToolDescription;
  readonly #original: string;
  /** The original name as messages and dataset names show it (text): the server's secrets masked. */
  readonly #shown: string;
  readonly #bridgedName: string;
  readonly #context: BridgeContext;
  /** The permissions the config gives the tool, if any: they decide its reach over any hint. */
  readonly #configured: readonly ToolPermission[] | undefined;
  /** The tool's reach as bridged, from the listing it was bridged from. */
  readonly #bridgedReach: ToolReach;
  /** What the server lists for the tool now, never looser than as bridged (see {@link #listedNow}). */
  #listed: ListedNow;
  readonly #sensitiveLevel: DataSensitivity | undefined;
  /**
   * Whether the tool's schema names or marks an argument secret: decided
   * on the first call after each listing (connect walks every schema once
   * already), so that a call of a tool without one does no work for them.
   */
  #hasSecretArguments = false;
  /** The route's listing when {@link #hasSecretArguments} was decided (none yet: undefined). */
  #secretsDecidedFor: readonly McpToolDescription[] | undefined;

  constructor(
    description: McpToolDescription,
    bridgedName: string,
    shown: string,
    context: BridgeContext,
  ) {
    this.#description = description;
    this.#original = description.name;
    this.#shown = shown;
    this.#bridgedName = bridgedName;
    this.#context = context;
    this.annotations = toAnnotations(description, context.masker);
    const config = context.route.config;
    this.#configured = ownValue(config.permissions, this.#original);
    this.#bridgedReach = recordReach(this.#original, this.#configured, this.annotations, context);
    this.#listed = {
      listing: context.route.tools,
      reach: this.#bridgedReach,
      repeatable: repeatableHints(this.annotations, this.annotations),
    };
    this.#sensitiveLevel = ownValue(config.sensitiveTools, this.#original);
  }

  /**
   * The handler: sync with the store, check the ratchet, send, map the
   * result; one retry when the error and the tool allow it (`retried`
   * marks the second). A call with nothing to wait for first (no store to
   * sync, no endpoint switch under way), the common one, is sent at once
   * and answered in one `then`: every promise a call makes costs it the
   * async-context hooks that per-call rollback relies on.
   */
  send(
    args: Record<string, unknown>,
    tool: ToolContext,
    retried = false,
  ): Promise<ToolResult<McpToolValue | null>> {
    const { route, session } = this.#context;
    // The ratchet reads this section's session: a call made in another one would escape it.
    if (tool.session !== session) return Promise.resolve(this.#otherSession(tool.session));
    // Escalations other workers stored for this session count before anything is decided.
    const mustSync = session.store !== undefined || session.hasPendingPrivateData;
    const connection = mustSync ? undefined : route.connectionNow(session.privateData.sensitivity);
    if (connection === undefined) return this.#sendWhenReady(args, tool, retried);
    return this.#exchange(connection, args, tool, retried);
  }

  /** The slow way in: sync with the store and wait for a switch under way, then send. */
  async #sendWhenReady(
    args: Record<string, unknown>,
    tool: ToolContext,
    retried: boolean,
  ): Promise<ToolResult<McpToolValue | null>> {
    const { route, session } = this.#context;
    let connection: McpServerConnection;
    try {
      if (session.store !== undefined || session.hasPendingPrivateData) {
        const unsynced = await syncWithStore(session, route.name, this.#shown, tool.signal);
        if (unsynced !== undefined) return unsynced;
      }
      // Refused now, the call does not wait for a switch.
      const refused = this.refusal(tool, retried);
      if (refused !== undefined) return ToolResult.error(refused);
      const sensitivity = session.privateData.sensitivity;
      connection = route.connectionNow(sensitivity) ?? (await route.connectionFor(sensitivity));
    } catch (error) {
      return this.#failed(error, args, tool, retried);
    }
    // Outside the try: the exchange answers its own failures (and retries them once).
    return this.#exchange(connection, args, tool, retried);
  }

  /**
   * Checks the ratchet (again: a wait before this may have let another call
   * escalate), sends on `connection` and maps the answer or the failure.
   */
  #exchange(
    connection: McpServerConnection,
    args: Record<string, unknown>,
    tool: ToolContext,
    retried: boolean,
  ): Promise<ToolResult<McpToolValue | null>> {
    const refused = this.refusal(tool, retried);
    if (refused !== undefined) return Promise.resolve(ToolResult.error(refused));
    // A connection that is (re)connecting would send later, unchecked: wait, then start over.
    if (!connection.isReady) return this.#sendWhenConnected(connection, args, tool, retried);
    const { route } = this.#context;
    // The server may echo the call's secret arguments in its progress and its log.
    let secrets: readonly string[] | undefined;
    try {
      secrets = this.#secretsOf(args);
    } catch (error) {
      // Only an in-process server's schema can throw when read; its words are masked as its others are.
      const reason = `its input schema could not be read: ${messageOf(error)}`;
      return Promise.resolve(
        ToolResult.error(route.redact(`tool "${this.#shown}" was not called: ${reason}`)),
      );
    }
    const progress = this.#progressRate(tool, args, secrets);
    const options = this.#callOptions(tool, progress);
    route.callStarted(); // a sandbox restart waits for calls in flight
    // Until the call settles, the server's log is masked for them too.
    const unregister =
      secrets === undefined ? undefined : callSecretsSent(this.#context.session, secrets);
    const settled = (): void => {
      route.callSettled();
      unregister?.();
      progress?.flush(); // the last report held back by the rate, before the result
    };
    try {
      // Answered in the SDK's own reaction to the response: no promise of the bridge's between.
      return connection.callTool(this.#original, args, options, {
        answered: (raw) => {
          settled();
          try {
            return this.#answer(raw, args, tool, secrets);
          } catch (error) {
            return this.#failed(error, args, tool, retried);
          }
        },
        failed: (error) => {
          settled();
          // Read now: a reconnection forgets why the connection closed.
          noteLossReason(error, connection.lostBecause);
          return this.#failed(error, args, tool, retried);
        },
      });
    } catch (error) {
      route.callSettled();
      unregister?.();
      return Promise.resolve(this.#failed(error, args, tool, retried));
    }
  }

  /**
   * The values of the call's secret arguments (as `secret-arguments.ts`
   * finds them with the tool's schema), or undefined when it has none.
   */
  #secretsOf(args: Record<string, unknown>): readonly string[] | undefined {
    // Decided again after each listing: an in-process server may have edited the schema in place.
    const { tools } = this.#context.route;
    if (this.#secretsDecidedFor !== tools) {
      this.#hasSecretArguments = declaresSecretArguments(this.#description.inputSchema);
      this.#secretsDecidedFor = tools;
    }
    const { inputSchema } = this.#description;
    const secrets = secretArgumentValues(args, inputSchema, this.#hasSecretArguments);
    return secrets.length === 0 ? undefined : secrets;
  }

  /** What masks the text the server wrote back about this call (an error), if anything needs masking. */
  #textMask(args: Record<string, unknown>): ((text: string) => string) | undefined {
    const { route } = this.#context;
    return callTextMask(
      this.#secretsIfReadable(args),
      route.redactor,
      otherCallSecrets(this.#context.session, args),
    );
  }

  /** The server's `text` about this call with its secrets and the call's secret arguments masked. */
  #maskedText(args: Record<string, unknown>, text: string): string {
    const mask = this.#textMask(args);
    return mask === undefined ? text : mask(text);
  }

  /** {@link #secretsOf}, or none when the schema throws when read (the server's own secrets are still masked). */
  #secretsIfReadable(args: Record<string, unknown>): readonly string[] | undefined {
    try {
      return this.#secretsOf(args);
    } catch {
      return undefined;
    }
  }

  /**
   * Waits for `connection` to be connected again (the caller's signal, the
   * deadline and the route's timeout still apply), then starts the call
   * over: escalation, the ratchet or the route may have moved meanwhile.
   */
  async #sendWhenConnected(
    connection: McpServerConnection,
    args: Record<string, unknown>,
    tool: ToolContext,
    retried: boolean,
  ): Promise<ToolResult<McpToolValue | null>> {
    const signal = tool.signal === NEVER_ABORTED ? undefined : tool.signal;
    try {
      await connection.whenReady(signal, this.#context.route.timeoutMs);
    } catch (error) {
      // Sent nowhere: retried once where that is safe, the wait bounded again.
      return this.#failed(error, args, tool, retried);
    }
    return this.send(args, tool, retried);
  }

  /** The result of an answered call, once any escalation it brought is in the store. */
  #answer(
    raw: CallToolResult,
    args: Record<string, unknown>,
    tool: ToolContext,
    secrets: readonly string[] | undefined,
  ): ToolResult<McpToolValue | null> | Promise<ToolResult<McpToolValue | null>> {
    const { route, session } = this.#context;
    const result = this.#resultOf(raw, args, tool, secrets);
    // The escalation is in the store before the call returns, or the call fails.
    if (!session.hasPendingPrivateData) return result;
    return recordEscalation(session, route.name, this.#shown, tool.signal).then(
      (unrecorded) => unrecorded ?? result,
    );
  }

  /** A call that threw: retried once when that is safe, an error result otherwise. */
  #failed(
    error: unknown,
    args: Record<string, unknown>,
    tool: ToolContext,
    retried: boolean,
  ): ToolResult<null> | Promise<ToolResult<McpToolValue | null>> {
    return retried ? this.#fail(error, args, tool, 'retried once') : this.#retry(error, args, tool);
  }

  async #retry(
    error: unknown,
    args: Record<string, unknown>,
    tool: ToolContext,
  ): Promise<ToolResult<McpToolValue | null>> {
    const { retry, route } = this.#context;
    // A route that fails closed stays closed: sending again (or reconnecting) cannot help.
    if (!retry.enabled || tool.signal.aborted || route.failClosedReason !== undefined)
      return this.#fail(error, args, tool);
    const decision = decideRetry(error, this.#listedNow(route).repeatable);
    if (!decision.retry) return this.#fail(error, args, tool, decision.note);
    // Taken now: the connection may reconnect by itself during the wait.
    const failedSession = route.active.sessionsOpened;
    try {
      await pause(retryDelayMs(retry), tool.signal);
      tool.signal.throwIfAborted();
      if (decision.newSession) {
        // Bounded like the call itself: a server that keeps failing to reconnect does not hold it.
        await withDeadline(() => route.renewSession(failedSession), {
          timeoutMs: route.timeoutMs,
          signal: tool.signal,
          onTimeout: () => notReconnected(route.name, route.timeoutMs),
        });
      }
    } catch (second) {
      return this.#fail(second, args, tool, 'retried once');
    }
    // Decided again on the listing of the moment: the new session may list the tool as not repeatable.
    const now = decideRetry(error, this.#listedNow(route).repeatable);
    if (!now.retry) return this.#fail(error, args, tool, now.note);
    return this.send(args, tool, true);
  }

  /** The server's answer as a result, after reading its private-data marker and checking its output. */
  #resultOf(
    raw: CallToolResult,
    args: Record<string, unknown>,
    tool: ToolContext,
    secrets: readonly string[] | undefined,
  ): ToolResult<McpToolValue | null> {
    const { route, session } = this.#context;
    const serverName = route.name;
    const shown = this.#shown;
    // The server's word that private data entered counts even on a failed call.
    const reading = readPrivateDataMarker(raw._meta);
    if (reading.kind === 'marker') {
      // The dataset name is the server's text: it reaches events and the store,
      // masked as the server's errors are (it may echo a secret argument).
      const dataset = this.#maskedText(args, reading.marker.dataset);
      session.privateData.add(dataset, reading.marker.sensitivity);
    } else if (reading.kind === 'malformed') {
      session.privateData.add(`${serverName}.${shown}`, MALFORMED_MARKER_SENSITIVITY);
      // A record of the raised level: a failed call's rollback keeps it.
      const malformed = new PrivateDataMarkerMalformed({
        sessionId: session.sessionId,
        serverName,
        toolName: this.#bridgedName,
        originalName: this.#shown,
        callId: tool.callId,
        reason: this.#maskedText(args, reading.reason),
        sensitivity: MALFORMED_MARKER_SENSITIVITY,
        createdAt: new Date(),
      });
      session.dispatchOutsideCalls(malformed);
    }
    const { outputSchema } = this.#description;
    const maxChars = route.config.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS;
    const limited = limitResult(raw, maxChars);
    // Structured content the limit left out reaches no one: it is not checked
    // (a server's 500,000 keys would cost the check what the limit saved).
    const leftOut = raw.structuredContent !== undefined && limited.structuredContent === undefined;
    const violation =
      outputSchema === undefined || leftOut
        ? undefined
        : outputSchemaViolation(outputSchema, raw, { serverName, toolName: shown }, () =>
            callQuoteMask(
              this.#secretsIfReadable(args),
              route.redactor,
              otherCallSecrets(this.#context.session, args),
            ),
          );
    let result = violation === undefined ? mapCallResult(limited) : ToolResult.error(violation);
    const mask = violation === undefined && raw.isError === true ? this.#textMask(args) : undefined;
    if (mask !== undefined) {
      // An error's text becomes its message: written from a copy masked (the
      // server's secrets, and the call's secret arguments it may echo) before
      // the limit can cut a secret; the value stays the tool's data.
      const masked = limitResult(withMaskedText(raw, mask, maxChars), maxChars);
      result = ToolResult.error(mask(mapCallResult(masked).message), result.value);
    }
    if (result.success && this.#sensitiveLevel !== undefined) {
      session.privateData.add(`${serverName}.${shown}`, this.#sensitiveLevel);
    }
    // Kept no longer than the event can show, and a secret the cut there splits whole:
    // the server's own, and the call's secret arguments it may echo in its answer's text.
    // Another call's too: a server may write one call's secret into another's answer.
    // The mask is made only when an event shows the answer; the calls in flight are read now
    // (not for what this call sent itself: see `otherCallSecrets`).
    const others = otherCallSecrets(this.#context.session, args);
    if (route.redactor.hasSecrets || secrets !== undefined || others !== undefined) {
      const answer: KeptAnswer = {
        raw: limitResult(raw, maxChars + MASK_MARGIN),
        maxChars,
        secrets,
        others,
      };
      setEventView(
        result,
        () => shownInEvents(result, route.redactor, answer) as ToolResult<unknown>,
      );
    }
    return result;
  }

  /** The refusal of a call made in a session that is not the section's. */
  #otherSession(caller: Session): ToolResult<null> {
    // The section's session id is another user's: not for this caller's model.
    return ToolResult.error(
      `tool "${this.#bridgedName}" belongs to a section of another session and was called in ` +
        `session "${caller.sessionId}": an MCP section's tools run only in its own session, whose ` +
        'private data decides what they may reach (make a section for each session)',
    );
  }

  /**
   * Why the ratchet refuses a call now, if it does: never while the session
   * holds no private data. Given the call's context, a pool call's own
   * check ({@link withSendCheck}) is asked too, told whether it is the retry.
   */
  refusal(call?: ToolContext, retried = false): string | undefined {
    const { route, session } = this.#context;
    // The common call is decided without reading the listing.
    if (!session.privateData.hasPrivateData) return undefined;
    const refused = callRefusal(this.#bridgedName, this.#listedNow(route).reach, {
      hasPrivateData: true,
      serverIsolated: route.isolateAt !== undefined,
    });
    return refused ?? (call === undefined ? undefined : sendChecks.get(call)?.(retried));
  }

  /**
   * What the server lists for this tool now, never looser than as bridged.
   * A call decides on the listing of the moment it is sent (and retried):
   * the server may have listed the tool again (a `tools/list_changed`, a
   * reconnect, the isolated endpoint after the switch) since this object
   * was made, while the call waited or while a caller held on to it. A
   * tool no longer listed says nothing of itself, which MCP reads as
   * open-world and not repeatable.
   */
  #listedNow(route: ServerRoute): ListedNow {
    const listing = route.tools;
    if (listing === this.#listed.listing) return this.#listed;
    const listed = listing.find((tool) => tool.name === this.#original);
    const annotations = listed === undefined ? {} : toAnnotations(listed, route.redactor);
    this.#listed = {
      listing,
      reach: stricterReach(this.#bridgedReach, resolveReach(this.#configured, annotations)),
      repeatable: repeatableHints(this.annotations, annotations),
    };
    return this.#listed;
  }

  /**
   * Whether a call starting now asks for progress: progress costs every
   * request a token, and the SDK and the server work for it, so it is
   * asked for only when something sees it, or when the server's config
   * says progress may keep a call alive past its timeout. Its reports are
   * the only session writes a bridged call makes in its own context (the
   * reducers of `McpToolProgress`): a call that asks for none runs in no
   * call scope (`ToolOptions.writesInCall`).
   */
  reportsProgress(): boolean {
    const { route, session } = this.#context;
    return route.config.maxTotalTimeoutMs !== undefined || isObserved(session, McpToolProgress);
  }

  /**
   * The call's progress reports, when it asks for them: only a call that
   * runs in its own scope does (decided as it started, by
   * {@link reportsProgress}: something that starts observing progress
   * while the call waits does not change it), so its reducers' writes are
   * the call's. They are published at a bounded rate (the server sends
   * them as fast as it likes; past the rate they still keep the call
   * alive), the last one held back published before the call's result.
   */
  #progressRate(
    tool: ToolContext,
    args: Record<string, unknown>,
    secrets: readonly string[] | undefined,
  ): EventRate<Progress> | undefined {
    const { route, session } = this.#context;
    if (!this.reportsProgress() || session.currentCall()?.callId !== tool.callId) return undefined;
    // Made on the first report: most calls send none.
    let own: ((text: string) => string) | undefined;
    const maskNow = (): ((text: string) => string) => {
      const call = (own ??= callTextMask(secrets, route.redactor) ?? AS_IT_IS);
      // Read for each report: the calls in flight beside this one change.
      const others = otherCallSecrets(this.#context.session, args);
      return others === undefined ? call : (text) => others(call(text));
    };
    /** Whether a report's number is a secret's value (a PIN echoed as a total). */
    const spellsSecret = (mask: (text: string) => string, value: number | undefined): boolean =>
      value !== undefined && mask(String(value)) !== String(value);
    // Progress arrives on the transport's own callback; running it in the call's
    // async context makes the reducers it runs part of this call, so a failure
    // undoes them with the call.
    const inCall = AsyncLocalStorage.snapshot();
    return new EventRate<Progress>(MAX_PROGRESS_EVENTS_PER_SECOND, (progress) => {
      const mask = maskNow();
      // Not published (it still keeps the call alive): a number has no mask.
      if (spellsSecret(mask, progress.progress) || spellsSecret(mask, progress.total)) return;
      inCall(() =>
        session.dispatch(
          new McpToolProgress({
            sessionId: session.sessionId,
            serverName: route.name,
            toolName: this.#bridgedName,
            originalName: this.#shown,
            callId: tool.callId,
            progress: progress.progress,
            ...(progress.total === undefined ? {} : { total: progress.total }),
            // Masked before the cut, which could leave a piece of a secret unrecognised.
            ...(progress.message === undefined
              ? {}
              : { message: maskedQuote(progress.message, mask) }),
            createdAt: new Date(),
          }),
        ),
      );
    });
  }

  /** The call's signal, timeout and progress handler, as {@link sendToolCall} takes them. */
  #callOptions(tool: ToolContext, progress: EventRate<Progress> | undefined): CallOptions {
    const { route } = this.#context;
    // Nothing can abort the default signal: do not make the SDK listen to it.
    const signal = tool.signal === NEVER_ABORTED ? undefined : tool.signal;
    const { maxTotalTimeoutMs } = route.config;
    // A deadline makes the call's timeout no longer than the time left.
    const { deadline } = tool;
    const limits =
      deadline === undefined
        ? undefined
        : {
            timeoutMs: Math.max(1, Math.min(route.timeoutMs, deadline.getTime() - Date.now())),
            deadline,
          };
    if (progress === undefined) {
      if (limits === undefined) return signal === undefined ? NO_CALL_OPTIONS : { signal };
      return { ...(signal === undefined ? {} : { signal }), ...limits };
    }
    return {
      ...(signal === undefined ? {} : { signal }),
      ...(maxTotalTimeoutMs === undefined ? {} : { maxTotalTimeoutMs }),
      ...limits,
      onProgress: (report: Progress) => progress.offer(report),
    };
  }

  #fail(
    error: unknown,
    args: Record<string, unknown>,
    tool: ToolContext,
    note?: string,
  ): ToolResult<null> {
    const { route, session } = this.#context;
    const mask = this.#textMask(args);
    const result = callFailure(error, {
      session,
      serverName: route.name,
      bridgedName: this.#bridgedName,
      original: this.#shown, // as events show it; its messages are masked below too
      callId: tool.callId,
      signal: tool.signal,
    });
    // A server's error page or message can be megabytes: cut once masked.
    const message = note === undefined ? result.message : `${result.message}; ${note}`;
    return ToolResult.error(maskedQuote(message, mask));
  }
}

/**
 * The reach of a tool as `context`'s listing gives it, recorded in
 * `context.reaches`: never looser than recorded before, and closed-world
 * only by the config for a tool first named in a listing made while the
 * session held private data (see {@link BridgeContext}). The catalog records the
 * tools it does not bridge (left out by `enabledTools`) too, so that another
 * section that selects them meets them as known.
 */
export function recordReach(
  original: string,
  configured: readonly ToolPermission[] | undefined,
  annotations: ToolAnnotations,
  context: Pick<BridgeContext, 'reaches' | 'listedWhilePrivate'>,
): ToolReach {
  const before = context.reaches.get(original);
  const trusted = before !== undefined || !context.listedWhilePrivate;
  const listed = trusted
    ? resolveReach(configured, annotations)
    : stricterReach(resolveReach(configured, undefined), resolveReach(configured, annotations));
  const reach = before === undefined ? listed : stricterReach(before, listed);
  context.reaches.set(original, reach);
  return reach;
}

/** A tool as its server lists it now: what the ratchet and a retry decide on. */
interface ListedNow {
  /** The route's listing this was read from (a frozen array: compared by identity). */
  readonly listing: readonly McpToolDescription[];
  readonly reach: ToolReach;
  /** The hints that make a call safe to send again, as both readings give them. */
  readonly repeatable: ToolAnnotations;
}

/** The hints that let a call be sent again, only where both readings give them. */
function repeatableHints(bridged: ToolAnnotations, now: ToolAnnotations): ToolAnnotations {
  return {
    idempotentHint: bridged.idempotentHint === true && now.idempotentHint === true,
    readOnlyHint: bridged.readOnlyHint === true && now.readOnlyHint === true,
  };
}
