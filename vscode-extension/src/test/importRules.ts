/**
 * Which room of src/ may import which: the glue (vscode/) and the two browser hosts
 * (webview/, dashboard/) lean on the pure model (model/); the model imports nothing of
 * the others; the canvas never imports the glue or the dashboard. A table, one row a
 * room. The imports are the compiler's own list (ts.preProcessFile: import, import type,
 * export … from, import(), require), so a comment or a string never counts.
 */
import { builtinModules } from 'node:module';
import * as path from 'node:path';
import { preProcessFile } from 'typescript';

export interface RoomRule {
  /** The rooms (folders of src/) whose files it may import, itself included. */
  rooms: readonly string[];
  /** Packages it never imports, with why. `node:` stands for Node's built-in modules. */
  never: Readonly<Record<string, string>>;
}

const NO_VSCODE = {
  vscode: 'the VS Code API is the glue\'s (src/vscode/)',
  'vscode-languageclient': 'the language client is the glue\'s (src/vscode/)',
};
const NO_DRAWING = {
  react: 'drawing is the canvas\'s (src/webview/)',
  'react-dom': 'drawing is the canvas\'s (src/webview/)',
  '@xyflow/react': 'drawing is the canvas\'s (src/webview/)',
  '@dagrejs/dagre': 'layout is the canvas\'s (src/webview/)',
};
const NO_NODE = { 'node:': 'it runs in a browser page (a webview, the Hermes dashboard)' };

export const RULES: Readonly<Record<string, RoomRule>> = {
  vscode: { rooms: ['vscode', 'model'], never: NO_DRAWING },
  model: { rooms: ['model'], never: { ...NO_VSCODE, ...NO_DRAWING } },
  webview: { rooms: ['webview', 'model'], never: { ...NO_VSCODE, ...NO_NODE } },
  dashboard: { rooms: ['dashboard', 'webview', 'model'], never: { ...NO_VSCODE, ...NO_NODE } },
  test: { rooms: ['vscode', 'model', 'webview', 'dashboard', 'test'], never: {} },
};

export interface SourceFile {
  /** Relative to src/, with `/`: `model/runModel.ts`. */
  path: string;
  text: string;
}

/** The package a bare specifier names (`react-dom/client` → `react-dom`; `fs`, `node:fs` → `node:`). */
function packageOf(specifier: string): string {
  const bare = specifier.startsWith('node:') ? specifier.slice(5) : specifier;
  const parts = bare.split('/');
  const name = bare.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
  return specifier.startsWith('node:') || builtinModules.includes(name) ? 'node:' : name;
}

/** Every import of every file that breaks its room's rule, one line each (none: the rooms hold). */
export function violations(files: readonly SourceFile[], rules: Readonly<Record<string, RoomRule>> = RULES): string[] {
  const found: string[] = [];
  for (const file of files) {
    const room = file.path.includes('/') ? file.path.split('/')[0] : '';
    const rule = rules[room];
    if (!rule) {
      found.push(`${file.path} is in no room (src/${Object.keys(rules).join('/, src/')}/)`);
      continue;
    }
    for (const { fileName: specifier } of preProcessFile(file.text, true, true).importedFiles) {
      if (specifier.startsWith('.')) {
        const target = path.posix.normalize(path.posix.join(path.posix.dirname(file.path), specifier));
        const into = target.includes('/') && !target.startsWith('..') ? target.split('/')[0] : '';
        if (!rule.rooms.includes(into)) {
          found.push(`${file.path} imports ${specifier}: ${room}/ may import only ${rule.rooms.join('/, ')}/`);
        }
        continue;
      }
      const name = packageOf(specifier);
      if (name in rule.never) {
        found.push(`${file.path} imports ${specifier}: ${room}/ never imports it (${rule.never[name]})`);
      }
    }
  }
  return found;
}
