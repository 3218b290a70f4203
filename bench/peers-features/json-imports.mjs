// @actions/workflow-parser imports its JSON schemas without `with { type: "json" }`, which
// Node 20 refuses; this hook adds the attribute (node --import ./json-imports.mjs probe.mjs).
import { register } from "node:module";

register("data:text/javascript," + encodeURIComponent(`
export async function load(url, context, nextLoad) {
  if (url.endsWith(".json")) {
    return nextLoad(url, { ...context, importAttributes: { type: "json" } });
  }
  return nextLoad(url, context);
}`));
