/**
 * What `ToolInvoked` shows of a result in place of the result itself, when
 * the tool that made it registered a view of it: a bridged call whose
 * answer echoed a secret argument (its own, or another call's) shows the
 * answer masked before the result limit cut it, while the caller gets the
 * result as it is. A result without a view costs one lookup when an event
 * is built, and nothing otherwise.
 */
import type { ToolResult } from './tool-result.js';

const views = new WeakMap<ToolResult<unknown>, () => ToolResult<unknown>>();

/** @internal Registers what events show of `result`, made when an event is built. */
export function setEventView(result: ToolResult<unknown>, view: () => ToolResult<unknown>): void {
  views.set(result, view);
}

/** @internal What events show of `result`, when its tool registered a view; undefined otherwise. */
export function eventViewOf<R>(result: ToolResult<R>): ToolResult<R> | undefined {
  return views.get(result)?.() as ToolResult<R> | undefined;
}
