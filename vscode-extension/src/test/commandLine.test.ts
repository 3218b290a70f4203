import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { joinCommandLine, splitCommandLine } from '../model/commandLine';

test('splitCommandLine splits as a shell would, expanding nothing', () => {
  const cases: Array<[string, string[] | { error: string }]> = [
    ['python3 agent.py', ['python3', 'agent.py']],
    ['  hermes   chat -q  ', ['hermes', 'chat', '-q']],
    ['python3 "/my agents/a.py" --name \'x y\'', ['python3', '/my agents/a.py', '--name', 'x y']],
    ['echo $HOME a\\ b ""', ['echo', '$HOME', 'a b', '']],
    ['say "a \\"quoted\\" word"', ['say', 'a "quoted" word']],
    ['', []],
    ['python3 "unclosed', { error: 'a double quote is not closed' }],
  ];
  for (const [line, argv] of cases) {
    assert.deepEqual(splitCommandLine(line), argv, line);
  }
});

test('joinCommandLine round-trips through splitCommandLine', () => {
  for (const argv of [['python3', 'a.py'], ['python3', '/my agents/a.py', "it's", ''], []]) {
    assert.deepEqual(splitCommandLine(joinCommandLine(argv)), argv);
  }
});
