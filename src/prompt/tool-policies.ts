/**
 * Which policies govern each tool of a rendered prompt: the policies of the
 * section that offers it, then the template's. A section's policies cover
 * its own tools only, not its children's (as in weakincentives), so moving a
 * section never changes the rules of tools elsewhere in the tree.
 */
import type { ToolPolicy } from '../tools/policy/tool-policy.js';
import type { Tool } from '../tools/tool.js';
import { sameItems } from './same-items.js';

/** Policies by tool name. */
export type ToolPolicyMap = ReadonlyMap<string, readonly ToolPolicy[]>;

/**
 * A tool list's own policies, or `null` for tools no policy governs, not
 * even the template's: the prompt's own `open_sections` / `read_section`,
 * which only read the prompt and note what is open.
 */
export type ListPolicies = readonly ToolPolicy[] | null;

interface Resolved {
  readonly sectionPolicies: readonly ListPolicies[];
  readonly templatePolicies: readonly ToolPolicy[];
  readonly map: ToolPolicyMap;
}

// `Prompt.render` hands out the same frozen tool list while the tools do not
// change, and sections the same frozen policy lists: an unchanged prompt's map is built once.
const resolvedFor = new WeakMap<readonly Tool[], Resolved>();

/**
 * The policies of every tool in `tools`, whose tools came in `toolLists`
 * from sections whose policies are `sectionPolicies` (index for index);
 * `undefined` when nothing has a policy, so a prompt without policies costs
 * nothing.
 */
export function resolveToolPolicies(
  tools: readonly Tool[],
  toolLists: readonly (readonly Tool[])[],
  sectionPolicies: readonly ListPolicies[],
  templatePolicies: readonly ToolPolicy[],
): ToolPolicyMap | undefined {
  if (templatePolicies.length === 0 && sectionPolicies.every((list) => (list?.length ?? 0) === 0)) {
    return undefined;
  }
  const cached = resolvedFor.get(tools);
  if (
    cached !== undefined &&
    cached.templatePolicies === templatePolicies &&
    sameItems(cached.sectionPolicies, sectionPolicies)
  ) {
    return cached.map;
  }
  const map = new Map<string, readonly ToolPolicy[]>();
  toolLists.forEach((list, index) => {
    const listed = sectionPolicies[index];
    if (listed === null) return; // governed by nothing: no entry
    const own = listed ?? [];
    const policies =
      own.length === 0
        ? templatePolicies
        : templatePolicies.length === 0
          ? own
          : Object.freeze([...own, ...templatePolicies]);
    for (const tool of list) map.set(tool.name, policies);
  });
  resolvedFor.set(tools, { sectionPolicies, templatePolicies, map });
  return map;
}
