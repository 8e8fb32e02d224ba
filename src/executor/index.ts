/**
 * Pure helpers for agents that speak a text protocol: parsing action input,
 * reading tool names and deciding whether a failed call is worth retrying.
 */
export { parseActionInput } from './action-input.js';
export type { ParseActionInputOptions } from './action-input.js';
export { normalizeToolName, splitToolName, ToolNameError } from './tool-name.js';
export { classifyError, wasNeverDelivered } from './classify-error.js';
export type { RetryClass } from './classify-error.js';
