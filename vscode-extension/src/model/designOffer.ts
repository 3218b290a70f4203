/**
 * A JSON file outside `hwf.designs.globs` that looks like a design (an object whose
 * `nodes` are objects with an `id` and a `type`) gets one offer to be treated as one.
 * Pure: what looks like a design, and the glob that would take in files like it.
 */

/** Whether `text` parses to an object whose `nodes` is a non-empty list of objects,
 * each with an `id` and a `type`. */
export function looksLikeDesign(text: string): boolean {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return false;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return false;
  }
  const nodes = (value as { nodes?: unknown }).nodes;
  return Array.isArray(nodes) && nodes.length > 0 && nodes.every(
    (node) => typeof node === 'object' && node !== null && !Array.isArray(node) && 'id' in node && 'type' in node,
  );
}

/** The glob for files like `relativePath` (workspace-relative, `/`-separated): the JSON
 * files of its folder wherever that folder is (`**\/misc/*.json`), or every `*.json` of
 * the workspace's root for a file there. */
export function globForFilesLike(relativePath: string): string {
  const parts = relativePath.split('/').filter((p) => p !== '');
  const folder = parts.length > 1 ? parts[parts.length - 2] : undefined;
  const extension = /\.[^./]+$/.exec(parts[parts.length - 1] ?? '')?.[0] ?? '.json';
  return folder ? `**/${folder}/*${extension}` : `*${extension}`;
}
