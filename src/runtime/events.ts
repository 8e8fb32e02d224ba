import { defineEvent } from './define-event.js';
import type { DataSensitivity } from '../core/sensitivity.js';
import type { RollbackConflictPath } from './call-journal.js';

/** Where a tool came from. */
export type ToolSource = 'native' | 'mcp';

/** Fields of {@link ToolInvoked}. */
export interface ToolInvokedInit {
  readonly toolName: string;
  readonly params: unknown;
  readonly result: { readonly message: string; readonly value: unknown; readonly success: boolean };
  readonly source: ToolSource;
  /** MCP server name, for MCP tools. */
  readonly mcpServer?: string;
  /** The tool's name on its MCP server (the wire name), for MCP tools. */
  readonly originalName?: string;
  /**
   * Set when a tool policy refused the call (the handler never ran): the
   * policy's name (for a refused approval, those that asked) and why.
   */
  readonly denial?: { readonly policy: string; readonly reason: string };
  readonly callId: string;
  readonly sessionId: string;
  readonly createdAt: Date;
  readonly durationMs: number;
}

/**
 * Published once for every tool invocation, whatever its outcome: bad
 * arguments, a refused call, a failure or a success.
 */
export class ToolInvoked extends defineEvent<ToolInvokedInit>() {}

/** Fields of {@link PromptRendered}. */
export interface PromptRenderedInit {
  readonly ns: string;
  readonly key: string;
  readonly name?: string;
  readonly text: string;
  readonly toolNames: readonly string[];
  readonly sessionId: string;
  readonly createdAt: Date;
}

/** Published when a prompt is rendered with a session. */
export class PromptRendered extends defineEvent<PromptRenderedInit>() {}

/** Fields of {@link SensitivityEscalated}. */
export interface SensitivityEscalatedInit {
  readonly sessionId: string;
  readonly previous: DataSensitivity;
  readonly sensitivity: DataSensitivity;
  /** The dataset whose addition raised the level. */
  readonly dataset: string;
  readonly createdAt: Date;
}

/** Published every time a session's sensitivity rises. */
export class SensitivityEscalated extends defineEvent<SensitivityEscalatedInit>() {}

/** Fields of {@link RollbackConflict}. */
export interface RollbackConflictInit {
  /** The tool whose failed call was rolled back. */
  readonly toolName: string;
  readonly callId: string;
  readonly sessionId: string;
  /** The call's writes that were kept, because a later write touched the same place. */
  readonly conflicts: readonly RollbackConflictPath[];
  readonly createdAt: Date;
}

/**
 * Published when a failed call's rollback left some of its writes in
 * place: another call or application code wrote the same place later, and
 * the later write wins. Published before the call's `ToolInvoked`.
 */
export class RollbackConflict extends defineEvent<RollbackConflictInit>() {}

/** Tokens a model used, as its provider counted them (0 where it reported none). */
export interface TokenUsage {
  /** Tokens read by the model, cached ones included. */
  readonly inputTokens: number;
  /** Tokens the model wrote, reasoning included. */
  readonly outputTokens: number;
  /** `inputTokens + outputTokens`. */
  readonly totalTokens: number;
}

/** Fields of {@link PromptExecuted}. */
export interface PromptExecutedInit {
  readonly ns: string;
  readonly key: string;
  readonly name?: string;
  /** The adapter's name, e.g. `openai-chat`. */
  readonly adapter: string;
  /** Model calls made, the repair turn included. */
  readonly turns: number;
  /** Tool calls the model asked for, refused and failed ones included. */
  readonly toolCalls: number;
  /** Summed over every turn. */
  readonly usage: TokenUsage;
  /** The model's final answer. */
  readonly text: string;
  /** The answer parsed with the template's output schema; undefined when it declares none. */
  readonly output: unknown;
  readonly sessionId: string;
  readonly createdAt: Date;
  readonly durationMs: number;
}

/**
 * Published once when `evaluate` has the model's final answer (parsed, when
 * the template declares an output): after every `PromptRendered` and
 * `ToolInvoked` of the evaluation. Not published for an evaluation that
 * ends with an error.
 */
export class PromptExecuted extends defineEvent<PromptExecutedInit>() {}
