// Bundles the extension into one file (dist/extension.js), so the .vsix ships no
// node_modules, and the canvas webview into dist/webview/canvas.{js,css} (React, React
// Flow and dagre inside: the webview loads nothing else). `--production` minifies;
// `--tests` builds the unit tests instead; `--dashboard` builds the same canvas with the
// Hermes dashboard host into hwf_lsp/hermes/dashboard/dist/ (docs/hermes.md).
import * as esbuild from 'esbuild';
import { readdirSync } from 'node:fs';

const production = process.argv.includes('--production');
const tests = process.argv.includes('--tests');
const dashboard = process.argv.includes('--dashboard');

/** The canvas for a browser: one IIFE script and its stylesheet. */
const browser = {
  bundle: true,
  format: 'iife',
  platform: 'browser',
  target: 'es2022',
  jsx: 'automatic',
  minify: production,
  sourcemap: false,
  define: { 'process.env.NODE_ENV': production ? '"production"' : '"development"' },
  logLevel: 'warning',
};

if (dashboard) {
  await esbuild.build({
    ...browser,
    entryPoints: { 'canvas-dashboard': 'src/dashboard/dashboard.tsx' },
    outdir: '../hwf_lsp/hermes/dashboard/dist',
  });
} else if (!tests) {
  await esbuild.build({
    entryPoints: ['src/vscode/extension.ts'],
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
  await esbuild.build({ ...browser, entryPoints: { canvas: 'src/webview/main.tsx' }, outdir: 'dist/webview' });
}

if (tests) {
  const entries = readdirSync('src/test').filter((f) => f.endsWith('.test.ts')).map((f) => `src/test/${f}`);
  await esbuild.build({
    entryPoints: entries,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node18',
    outdir: 'dist/test',
    external: ['typescript'], // importRules.ts reads imports with the compiler's scanner: loaded from node_modules, not bundled
    mainFields: ['module', 'main'],
    logLevel: 'warning',
  });
}
