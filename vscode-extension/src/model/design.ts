/**
 * Reading a design document's text: its name, its nodes and the node under the
 * cursor. Tolerant (jsonc-parser never throws), pure, no VS Code API.
 */
import { findNodeAtOffset, getNodeValue, Node as JsonNode, parseTree } from 'jsonc-parser';

export interface NodeSpot {
  id: string;
  type?: string;
  title?: string;
  /** Offset of the node object's `{`. */
  offset: number;
}

function nodesArray(root: JsonNode | undefined): JsonNode | undefined {
  if (!root || root.type !== 'object') {
    return undefined;
  }
  for (const property of root.children ?? []) {
    const [key, value] = property.children ?? [];
    if (key?.value === 'nodes' && value?.type === 'array') {
      return value;
    }
  }
  return undefined;
}

function stringProperty(node: JsonNode, name: string): string | undefined {
  for (const property of node.children ?? []) {
    const [key, value] = property.children ?? [];
    if (key?.value === name && value?.type === 'string') {
      return value.value as string;
    }
  }
  return undefined;
}

/** The design's `name`, or undefined when the text has none (yet). */
export function designName(text: string): string | undefined {
  const root = parseTree(text, [], { allowTrailingComma: true });
  return root && root.type === 'object' ? stringProperty(root, 'name') : undefined;
}

/** Every node object with a string id, in file order. */
export function designNodeSpots(text: string): NodeSpot[] {
  const nodes = nodesArray(parseTree(text, [], { allowTrailingComma: true }));
  const spots: NodeSpot[] = [];
  for (const item of nodes?.children ?? []) {
    if (item.type !== 'object') {
      continue;
    }
    const id = stringProperty(item, 'id');
    if (id !== undefined && id !== '') {
      spots.push({ id, type: stringProperty(item, 'type'), title: stringProperty(item, 'title'), offset: item.offset });
    }
  }
  return spots;
}

/** The id of the node whose object contains `offset`, if any. */
export function nodeIdAt(text: string, offset: number): string | undefined {
  const root = parseTree(text, [], { allowTrailingComma: true });
  const nodes = nodesArray(root);
  if (!root || !nodes) {
    return undefined;
  }
  let current: JsonNode | undefined = findNodeAtOffset(root, offset, true);
  while (current && current.parent !== nodes) {
    current = current.parent;
  }
  return current && current.type === 'object' ? stringProperty(current, 'id') : undefined;
}

/** The parsed design, or undefined when the text is not a JSON object. */
export function parseDesign(text: string): Record<string, unknown> | undefined {
  const root = parseTree(text, [], { allowTrailingComma: true });
  if (!root || root.type !== 'object') {
    return undefined;
  }
  return getNodeValue(root) as Record<string, unknown>;
}
