// Validate JSON documents against a schema with VS Code's own JSON engine
// (vscode-json-languageservice), so the tests can compare its verdicts with Python's.
//
// argv[2]: a node_modules directory holding vscode-json-languageservice, jsonc-parser
//          and vscode-languageserver-textdocument.
// stdin:   {"schema": <schema object>, "documents": [<text>, ...]}; a document's own
//          "$schema", whatever its path, also resolves to <schema object>.
//          Optionally "completions": [[<text>, <offset>, <uri>?], ...] and "fileMatch".
// stdout:  {"diagnostics": one entry per document: a list of [path, message] per
//          diagnostic, path being the JSON path (jsonc-parser getLocation) at its start;
//          "completions": one list of item labels per completion request}.
'use strict';
const path = require('path');
const modules = path.resolve(process.argv[2]);
const json = require(path.join(modules, 'vscode-json-languageservice'));
const jsonc = require(path.join(modules, 'jsonc-parser'));
const { TextDocument } = require(path.join(modules, 'vscode-languageserver-textdocument'));

async function main() {
  const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
  // A design may name the schema itself in "$schema" (any path): serve ours for it.
  const text = JSON.stringify(input.schema);
  const service = json.getLanguageService({
    schemaRequestService: () => Promise.resolve(text),
    workspaceContext: { resolveRelativePath: (rel, base) => new URL(rel, base).toString() },
  });
  // "fileMatch" (optional) associates the schema as an extension's jsonValidation does;
  // a null "schema" leaves documents without one.
  service.configure({
    validate: true,
    schemas: input.schema ? [{ uri: input.schema.$id, fileMatch: input.fileMatch || ['*.json'],
      schema: input.schema }] : [],
  });
  const results = [];
  for (const [i, source] of input.documents.entries()) {
    const doc = TextDocument.create(`file:///designs/design-${i}.json`, 'json', 1, source);
    const parsed = service.parseJSONDocument(doc);
    const diagnostics = await service.doValidation(doc, parsed, { schemaValidation: 'error' });
    results.push(diagnostics.map((d) => {
      const offset = doc.offsetAt(d.range.start);
      return [jsonc.getLocation(source, offset).path, d.message];
    }));
  }
  const completions = [];
  for (const [source, offset, uri] of input.completions || []) {
    const doc = TextDocument.create(uri || 'file:///designs/complete.json', 'json', 1, source);
    const list = await service.doComplete(doc, doc.positionAt(offset),
      service.parseJSONDocument(doc));
    completions.push(list.items.map((item) => item.label));
  }
  process.stdout.write(JSON.stringify({ diagnostics: results, completions }));
}

main().catch((error) => {
  process.stderr.write(String(error && error.stack || error));
  process.exit(1);
});
