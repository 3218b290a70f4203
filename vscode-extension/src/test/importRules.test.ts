// The rooms of src/ hold (importRules.ts): the tree as it is, and each rule shown
// catching a planted import that breaks it.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { RULES, SourceFile, violations } from './importRules';

const SRC = path.join(__dirname, '..', '..', 'src');

/** Every .ts and .tsx file under src/, as the checker takes them. */
function sourceFiles(): SourceFile[] {
  return readdirSync(SRC, { recursive: true, encoding: 'utf8' })
    .filter((p) => /\.tsx?$/.test(p))
    .map((p) => ({ path: p.split(path.sep).join('/'), text: readFileSync(path.join(SRC, p), 'utf8') }));
}

test('every file of src/ is in a room and imports only what its room may', () => {
  const files = sourceFiles();
  const rooms = new Set(files.map((f) => f.path.split('/')[0]));
  assert.deepEqual([...rooms].sort(), Object.keys(RULES).sort(), 'each room holds files');
  assert.ok(files.length > 50, `${files.length} files read`);
  assert.deepEqual(violations(files), []);
});

/** One planted file → the violations the checker must report (none: it is allowed). */
const CASES: [string, SourceFile, string[]][] = [
  ['the model imports the VS Code API', { path: 'model/x.ts', text: "import * as vscode from 'vscode';" },
    ['model/x.ts imports vscode: model/ never imports it (the VS Code API is the glue\'s (src/vscode/))']],
  ['the model requires the language client', { path: 'model/x.ts', text: "const lc = require('vscode-languageclient/node');" },
    ['model/x.ts imports vscode-languageclient/node: model/ never imports it (the language client is the glue\'s (src/vscode/))']],
  ['the model imports a type of React Flow', { path: 'model/x.ts', text: "import type { Node } from '@xyflow/react';" },
    ['model/x.ts imports @xyflow/react: model/ never imports it (drawing is the canvas\'s (src/webview/))']],
  ['the model imports the glue (a multi-line import)', { path: 'model/x.ts', text: "import {\n  getLog,\n} from '../vscode/log';" },
    ['model/x.ts imports ../vscode/log: model/ may import only model/']],
  ['the model imports the canvas dynamically', { path: 'model/x.ts', text: "const m = await import('../webview/layout');" },
    ['model/x.ts imports ../webview/layout: model/ may import only model/']],
  ['the canvas imports the glue', { path: 'webview/x.tsx', text: "import { ServerManager } from '../vscode/server';" },
    ['webview/x.tsx imports ../vscode/server: webview/ may import only webview/, model/']],
  ['the canvas imports the dashboard', { path: 'webview/x.ts', text: "export { draftStore } from '../dashboard/draftStore';" },
    ['webview/x.ts imports ../dashboard/draftStore: webview/ may import only webview/, model/']],
  ['the canvas imports a Node built-in', { path: 'webview/x.ts', text: "import * as fs from 'fs';\nimport { join } from 'node:path';" },
    ['webview/x.ts imports fs: webview/ never imports it (it runs in a browser page (a webview, the Hermes dashboard))',
      'webview/x.ts imports node:path: webview/ never imports it (it runs in a browser page (a webview, the Hermes dashboard))']],
  ['the dashboard imports the VS Code API', { path: 'dashboard/x.ts', text: "import type { Uri } from 'vscode';" },
    ['dashboard/x.ts imports vscode: dashboard/ never imports it (the VS Code API is the glue\'s (src/vscode/))']],
  ['the glue imports the canvas', { path: 'vscode/x.ts', text: "import { toFlow } from '../webview/flowElements';" },
    ['vscode/x.ts imports ../webview/flowElements: vscode/ may import only vscode/, model/']],
  ['the glue imports React', { path: 'vscode/x.ts', text: "import { useState } from 'react';" },
    ['vscode/x.ts imports react: vscode/ never imports it (drawing is the canvas\'s (src/webview/))']],
  ['a file outside every room', { path: 'common/x.ts', text: '' },
    ['common/x.ts is in no room (src/vscode/, src/model/, src/webview/, src/dashboard/, src/test/)']],
  ['a file at the top of src/', { path: 'extension.ts', text: '' },
    ['extension.ts is in no room (src/vscode/, src/model/, src/webview/, src/dashboard/, src/test/)']],
  ['an import out of src/', { path: 'model/x.ts', text: "import pkg from '../../package.json';" },
    ['model/x.ts imports ../../package.json: model/ may import only model/']],
  ['an import in a comment or a string is none', { path: 'model/x.ts', text: "// import * as vscode from 'vscode';\nconst s = \"import x from '../vscode/log'\";" }, []],
  ['the dashboard imports the canvas, its stylesheet and the model', { path: 'dashboard/x.tsx', text: "import { Canvas } from '../webview/Canvas';\nimport '../webview/canvas.css';\nimport { asGraphView } from '../model/graphModel';\nimport { createRoot } from 'react-dom/client';" }, []],
  ['the glue imports the model, Node and the language client', { path: 'vscode/x.ts', text: "import { runsOf } from '../model/runModel';\nimport * as fs from 'fs';\nimport { LanguageClient } from 'vscode-languageclient/node';" }, []],
  ['the model imports jsonc-parser and itself', { path: 'model/x.ts', text: "import { parseTree } from 'jsonc-parser';\nimport type { GraphView } from './graphModel';" }, []],
  ['a test imports every room', { path: 'test/x.test.ts', text: "import '../vscode/log';\nimport '../model/runModel';\nimport '../webview/layout';\nimport '../dashboard/draftStore';" }, []],
];

for (const [name, file, expected] of CASES) {
  test(`import rules: ${name}`, () => {
    assert.deepEqual(violations([file]), expected);
  });
}
