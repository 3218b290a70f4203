/**
 * What another writer changed in a stored design, in words, for the tab's conflict banner:
 * a Save refused because the stored copy is no longer the one the draft was made from
 * says what differs between the two (nodes added, removed or changed by id, the name),
 * so the user can tell whether to reload theirs or overwrite it with their own. No DOM.
 */

type Nodes = Map<string, Record<string, unknown>>;

/** The design's name and nodes by id, if `text` is a design's JSON. */
function designOf(text: string): { name: unknown; nodes: Nodes; rest: string } | undefined {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    const { name, nodes, ...rest } = value as Record<string, unknown>;
    const byId: Nodes = new Map();
    for (const node of Array.isArray(nodes) ? nodes : []) {
      if (typeof node === 'object' && node !== null && typeof (node as { id?: unknown }).id === 'string') {
        byId.set((node as { id: string }).id, node as Record<string, unknown>);
      }
    }
    return { name, nodes: byId, rest: JSON.stringify(rest) };
  } catch {
    return undefined;
  }
}

/** The fields of a node whose values differ between two copies of it. */
function changedFields(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...keys].filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]));
}

const listed = (ids: string[]) => (ids.length > 4 ? `${ids.slice(0, 4).join(', ')} and ${ids.length - 4} more` : ids.join(', '));

/** What changed from the `base` text to the `stored` one, in one short sentence ("" when `base` is no design). */
export function storeChanges(base: string, stored: string): string {
  const before = designOf(base);
  const after = designOf(stored);
  if (!after) return 'The stored copy is not valid JSON now.';
  if (!before) return '';
  const parts: string[] = [];
  if (JSON.stringify(before.name) !== JSON.stringify(after.name)) parts.push(`renamed the design to ${JSON.stringify(after.name)}`);
  const added = [...after.nodes.keys()].filter((id) => !before.nodes.has(id));
  const removed = [...before.nodes.keys()].filter((id) => !after.nodes.has(id));
  const changed = [...after.nodes.keys()].flatMap((id) => {
    const was = before.nodes.get(id);
    const fields = was ? changedFields(was, after.nodes.get(id)!) : [];
    return fields.length ? [`${id} (${fields.join(', ')})`] : [];
  });
  if (added.length) parts.push(`added ${listed(added)}`);
  if (removed.length) parts.push(`removed ${listed(removed)}`);
  if (changed.length) parts.push(`changed ${listed(changed)}`);
  if (before.rest !== after.rest) parts.push('changed the design\'s other fields');
  if (!parts.length && before.nodes.size === after.nodes.size && [...before.nodes.keys()].some((id, i) => [...after.nodes.keys()][i] !== id)) {
    parts.push('reordered the nodes');
  }
  return parts.length ? `They ${parts.join('; ')}.` : 'They changed only the layout of the text, nothing of the design.';
}
