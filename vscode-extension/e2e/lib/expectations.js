// Checking what the Problems panel shows against examples/broken.expected.json.
// broken.hwf.json has one node per line, so a defect of node N belongs on a line
// that holds `"id": "N"` (several lines when ids repeat).
'use strict';

/**
 * 1-based lines of `text` on which a defect of node `id` may be shown: where the node
 * is declared. A finding with neither node nor field (a text-level one such as a
 * duplicate key) may be on any line: null. A node without a usable id is `"id": ""`.
 */
function linesOfNode(text, id, field) {
  if (id === null && field === null) {
    return null;
  }
  const needle = `"id": ${JSON.stringify(id ?? '')}`;
  const lines = [];
  text.split('\n').forEach((line, i) => line.includes(needle) && lines.push(i + 1));
  return lines;
}

/**
 * Rules that VS Code's JSON validation reports itself on every JSON file; the
 * extension drops the server's copy, so the JSON service's problem stands for it.
 */
const JSON_SERVICE_RULES = { 'duplicate-key': /duplicate object key/i, 'json-syntax': /./ };

/**
 * Pairs every expected defect with one shown problem of the same rule code and
 * severity on one of its node's lines. Returns {missing, unexpected, matched}:
 * `unexpected` holds hwf problems no expectation claimed (extras or duplicates).
 */
function matchProblems(expected, shown, text) {
  const left = shown.filter((p) => p.source === 'hwf');
  const json = shown.filter((p) => p.source === 'json');
  const matched = [];
  const missing = [];
  for (const want of expected) {
    const lines = linesOfNode(text, want.node, want.field);
    const onLine = (p) => lines === null || lines.includes(p.line);
    const jsonRule = JSON_SERVICE_RULES[want.rule];
    if (jsonRule) {
      const shownByJson = json.find((p) => jsonRule.test(p.message) && onLine(p));
      if (shownByJson) {
        matched.push([want, shownByJson]);
        continue;
      }
    }
    const index = left.findIndex(
      (p) => p.code === want.rule && p.severity === want.severity && onLine(p),
    );
    if (index < 0) {
      missing.push({ ...want, lines });
    } else {
      matched.push([want, left[index]]);
      left.splice(index, 1);
    }
  }
  return { matched, missing, unexpected: left };
}

module.exports = { matchProblems, linesOfNode };
