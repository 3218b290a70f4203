// Unit tests of the workflow debugger's pure parts (node --test): how the adapter starts,
// the launch configurations the extension writes, and the node a line belongs to.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { test } from 'node:test';
import {
  adapterLaunch,
  adapterServer,
  breakpointToggle,
  caseLaunch,
  completeLaunch,
  designLaunch,
  nodeOnLine,
  nodesWithBreakpoints,
  shellJoin,
  testFileDesign,
  topFrame,
} from '../model/debugModel';

test('adapterLaunch: the server\'s Python runs hwf_lsp.cli debug-adapter with -P; a bundled server\'s libs go first on PYTHONPATH', () => {
  const bundled = adapterLaunch('/py', { kind: 'bundled', libs: '/ext/bundled/libs' }, '/safe', { PYTHONPATH: '/mine', PATH: '/bin' }, '/hh');
  assert.deepEqual(bundled, {
    command: '/py',
    args: ['-P', '-m', 'hwf_lsp.cli', 'debug-adapter'],
    options: { cwd: '/safe', env: { PYTHONPATH: `/ext/bundled/libs${path.delimiter}/mine`, PATH: '/bin', HERMES_HOME: '/hh' } },
  });
  const installed = adapterLaunch('/py', { kind: 'installed' }, '/safe', { PATH: '/bin' });
  assert.deepEqual(installed.options.env, { PATH: '/bin' }, 'nothing added for an installed server, no HERMES_HOME when the setting is empty');
  assert.deepEqual(adapterLaunch('/py', { kind: 'bundled', libs: '/l' }, '/s', {}).options.env, { PYTHONPATH: '/l' });
});

test('adapterServer: the kind of server the language server runs, its libs beside bundled/tool', () => {
  const cases: [Parameters<typeof adapterServer>, ReturnType<typeof adapterServer>][] = [
    [['installed', undefined], { kind: 'installed' }],
    [['bundled', '/ext/bundled/tool/lsp_server.py'], { kind: 'bundled', libs: '/ext/bundled/libs' }],
    [['bundled', undefined], undefined],
    [[undefined, '/ext/bundled/tool/lsp_server.py'], undefined],
  ];
  for (const [args, expected] of cases) {
    assert.deepEqual(adapterServer(...args), expected, JSON.stringify(args));
  }
});

test('shellJoin: Python\'s shlex.split reads every argv back unchanged', () => {
  const argvs = [['python3', '/path/echo_agent.py'], ['hermes', 'workflow', 'agent'], ['/a b/py', "it's", '$HOME', 'x"y', '']];
  for (const argv of argvs) {
    const line = shellJoin(argv);
    const back = spawnSync('python3', ['-c', 'import json, shlex, sys; print(json.dumps(shlex.split(sys.argv[1])))', line], { encoding: 'utf8' });
    assert.deepEqual(JSON.parse(back.stdout), argv, line);
  }
  assert.equal(shellJoin(['python3', '/p/echo_agent.py']), 'python3 /p/echo_agent.py');
});

test('designLaunch and caseLaunch: the configurations the lenses start', () => {
  assert.deepEqual(designLaunch('/w/review-flow.hwf.json'), { type: 'hwf', request: 'launch', name: 'Debug review-flow.hwf.json', design: '/w/review-flow.hwf.json' });
  assert.deepEqual(caseLaunch('/w/r.hwf-test.json', 'a case', '/w/r.hwf.json'), {
    type: 'hwf', request: 'launch', name: 'Debug case: a case', testCase: '/w/r.hwf-test.json#a case', design: '/w/r.hwf.json',
  });
  assert.equal('design' in caseLaunch('/w/r.hwf-test.json', 'c', undefined), false);
});

test('testFileDesign: the design a test file names beside it; a stored name or junk gives none', () => {
  const exists = (file: string) => file === '/w/examples/review-flow.hwf.json';
  const cases: [unknown, string | undefined][] = [
    ['review-flow.hwf.json', '/w/examples/review-flow.hwf.json'],
    ['./review-flow.hwf.json', '/w/examples/review-flow.hwf.json'],
    ['review-flow', undefined],
    [42, undefined],
    ['', undefined],
  ];
  for (const [field, expected] of cases) {
    assert.equal(testFileDesign('/w/examples/r.hwf-test.json', field, exists), expected, JSON.stringify(field));
  }
});

test('completeLaunch: F5 debugs the active design with the settings\' commands; the configuration\'s own win', () => {
  const defaults = { activeDesign: '/w/d.hwf.json', agentCommand: ['python3', '/a b/agent.py'], deliveryCommand: [] };
  assert.deepEqual(completeLaunch({}, defaults), {
    type: 'hwf', request: 'launch', name: 'Debug d.hwf.json', design: '/w/d.hwf.json', agentCommand: "python3 '/a b/agent.py'",
  });
  const own = completeLaunch({ type: 'hwf', request: 'launch', name: 'mine', design: '/x.hwf.json', agentCommand: 'my-agent', stopOnEntry: true }, defaults);
  assert.deepEqual(own, { type: 'hwf', request: 'launch', name: 'mine', design: '/x.hwf.json', agentCommand: 'my-agent', stopOnEntry: true });
  const testCase = completeLaunch({ testCase: '/w/t.hwf-test.json#c', design: '/w/d.hwf.json' }, { ...defaults, deliveryCommand: ['deliver'] });
  assert.deepEqual(testCase, { type: 'hwf', request: 'launch', name: 'Debug d.hwf.json', testCase: '/w/t.hwf-test.json#c', design: '/w/d.hwf.json' },
    'a test case runs its mocked agents: no agent or delivery command from the settings');
  assert.deepEqual(completeLaunch({}, { agentCommand: [], deliveryCommand: [] }), {
    error: 'Open a design (or name one with "design" in the launch configuration) to debug it.',
  });
});

const NODES = [
  { id: 'start', kind: 'trigger', range: { start: { line: 3 }, end: { line: 3 } } },
  { id: 'review', kind: 'agent', range: { start: { line: 4 }, end: { line: 8 } } },
  { id: 'publish', kind: 'output', range: { start: { line: 9 }, end: { line: 12 } } },
  { id: 'how', kind: 'note', range: { start: { line: 13 }, end: { line: 13 } } },
  { id: 'broken', kind: 'agent' },
];

test('nodeOnLine and nodesWithBreakpoints: a line inside a step\'s object belongs to it; triggers, notes and other lines have none', () => {
  const cases: [number, string | undefined][] = [[2, undefined], [3, 'start'], [4, 'review'], [8, 'review'], [10, 'publish'], [14, undefined]];
  for (const [line, id] of cases) {
    assert.equal(nodeOnLine(NODES, line)?.id, id, `line ${line}`);
  }
  assert.deepEqual(nodesWithBreakpoints(NODES, [0, 3, 5, 6, 12, 13]), ['review', 'publish']);
});

test('breakpointToggle: a step without one gets one at its first line; with any, they all go; not on a trigger or note', () => {
  const cases: [string, number[], ReturnType<typeof breakpointToggle>][] = [
    ['publish', [], { add: 9 }],
    ['publish', [4, 11], { remove: [11] }],
    ['review', [4, 6, 9], { remove: [4, 6] }],
    ['start', [], undefined],
    ['how', [], undefined],
    ['broken', [], undefined],
  ];
  for (const [id, lines, expected] of cases) {
    assert.deepEqual(breakpointToggle(NODES.find((n) => n.id === id), lines), expected, `${id} ${JSON.stringify(lines)}`);
  }
});

test('topFrame: the stopped place of a stackTrace response; none without a source path', () => {
  const cases: [unknown, ReturnType<typeof topFrame>][] = [
    [{ stackFrames: [{ id: 1, name: 'publish', line: 10, column: 1, source: { path: '/w/d.hwf.json' } }, { id: 2, line: 4 }] }, { path: '/w/d.hwf.json', line: 10 }],
    [{ stackFrames: [] }, undefined],
    [{ stackFrames: [{ id: 1, line: 3 }] }, undefined],
    [null, undefined],
  ];
  for (const [body, expected] of cases) {
    assert.deepEqual(topFrame(body), expected, JSON.stringify(body));
  }
});
