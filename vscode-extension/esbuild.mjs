// Bundles the extension into one file (dist/extension.js), so the .vsix ships no
// node_modules. `--production` minifies; `--tests` builds the unit tests instead.
import * as esbuild from 'esbuild';
import { readdirSync } from 'node:fs';

const production = process.argv.includes('--production');
const tests = process.argv.includes('--tests');

if (!tests) await esbuild.build({
  entryPoints: ['src/extension.ts'],
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node18',
  outfile: 'dist/extension.js',
  external: ['vscode'],
  mainFields: ['module', 'main'],
  minify: production,
  sourcemap: !production,
  sourcesContent: false,
  logLevel: 'warning',
});

if (tests) {
  const entries = readdirSync('src/test').filter((f) => f.endsWith('.test.ts')).map((f) => `src/test/${f}`);
  await esbuild.build({
    entryPoints: entries,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node18',
    outdir: 'dist/test',
    mainFields: ['module', 'main'],
    logLevel: 'warning',
  });
}
