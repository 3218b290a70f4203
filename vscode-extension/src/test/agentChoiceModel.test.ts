// Unit tests of who performs agent steps (agentChoiceModel.ts): finding `hermes` on a PATH,
// the quick pick's items, the argv each choice writes, when the offer is made (node --test).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  agentChoiceItems,
  choiceOfCommand,
  commandForChoice,
  executableNames,
  findOnPath,
  NO_AGENT_COMMAND_NOTE,
  offerMessage,
  shouldOfferHermes,
} from '../model/agentChoiceModel';

const executables = (...files: string[]) => {
  const asked: string[] = [];
  const probe = (file: string) => {
    asked.push(file);
    return files.includes(file);
  };
  return { probe, asked };
};

test('findOnPath: the first PATH directory holding an executable wins, as an absolute path', () => {
  const { probe } = executables('/opt/hermes/bin/hermes', '/usr/local/bin/hermes');
  assert.equal(findOnPath('hermes', '/usr/bin:/opt/hermes/bin:/usr/local/bin', probe, { delimiter: ':' }), '/opt/hermes/bin/hermes');
  assert.equal(findOnPath('hermes', '/usr/local/bin:/opt/hermes/bin', probe, { delimiter: ':' }), '/usr/local/bin/hermes');
});

test('findOnPath: nothing found, an unset PATH, an empty PATH', () => {
  const { probe } = executables('/elsewhere/hermes');
  assert.equal(findOnPath('hermes', '/usr/bin:/bin', probe, { delimiter: ':' }), undefined);
  assert.equal(findOnPath('hermes', undefined, probe, { delimiter: ':' }), undefined);
  assert.equal(findOnPath('hermes', '', probe, { delimiter: ':' }), undefined);
});

test('findOnPath: empty and relative entries (the current directory, maybe a repository) are never searched', () => {
  const { probe, asked } = executables('hermes', 'bin/hermes', './hermes', '/ok/hermes');
  assert.equal(findOnPath('hermes', ':.:bin:./x::/ok', probe, { delimiter: ':' }), '/ok/hermes');
  assert.deepEqual(asked, ['/ok/hermes']);
});

test('findOnPath: a file the probe calls not executable is skipped for a later one', () => {
  const { probe, asked } = executables('/b/hermes');
  assert.equal(findOnPath('hermes', '/a:/b', probe, { delimiter: ':' }), '/b/hermes');
  assert.deepEqual(asked, ['/a/hermes', '/b/hermes']);
});

test('findOnPath with Windows names: PATHEXT extensions are tried in order', () => {
  const names = executableNames('hermes', 'win32', '.COM;.EXE;.CMD');
  assert.deepEqual(names, ['hermes.com', 'hermes.exe', 'hermes.cmd', 'hermes']);
  assert.deepEqual(executableNames('hermes', 'linux', '.EXE'), ['hermes']);
  const { probe } = executables('/tools/hermes.exe');
  assert.equal(findOnPath('hermes', '/none:/tools', probe, { delimiter: ':', names }), '/tools/hermes.exe');
});

test('commandForChoice: the argv written to hwf.agent.command', () => {
  assert.deepEqual(commandForChoice('hermes', '/opt/hermes/bin/hermes'), ['/opt/hermes/bin/hermes', 'workflow', 'agent']);
  assert.deepEqual(commandForChoice('byHand', '/opt/hermes/bin/hermes'), []);
  assert.deepEqual(commandForChoice('byHand', undefined), []);
  assert.equal(commandForChoice('other', '/opt/hermes/bin/hermes'), undefined); // the user writes it
  assert.equal(commandForChoice('hermes', undefined), undefined); // no hermes: nothing to write
});

test('choiceOfCommand: which choice a setting is', () => {
  assert.equal(choiceOfCommand([]), 'byHand');
  assert.equal(choiceOfCommand(['/opt/hermes/bin/hermes', 'workflow', 'agent']), 'hermes');
  assert.equal(choiceOfCommand(['hermes', 'workflow', 'agent']), 'hermes');
  assert.equal(choiceOfCommand(['C:\\Hermes\\hermes.EXE', 'workflow', 'agent']), process.platform === 'win32' ? 'hermes' : 'other');
  assert.equal(choiceOfCommand(['hermes', 'workflow', 'agent', '--x']), 'other');
  assert.equal(choiceOfCommand(['hermes', 'workflow']), 'other');
  assert.equal(choiceOfCommand(['python3', '/agents/echo.py']), 'other');
  assert.equal(choiceOfCommand(['/bin/hermes-other', 'workflow', 'agent']), 'other');
});

test('agentChoiceItems: "Your Hermes model" with its path only when hermes is found; the current choice marked', () => {
  const found = agentChoiceItems('/opt/hermes/bin/hermes', []);
  assert.deepEqual(found.map((i) => i.choice), ['hermes', 'byHand', 'other']);
  assert.match(found[0].label, /Your Hermes model$/);
  assert.equal(found[0].detail, '/opt/hermes/bin/hermes workflow agent');
  assert.deepEqual(found.map((i) => i.description.endsWith('· current')), [false, true, false]);

  const missing = agentChoiceItems(undefined, []);
  assert.deepEqual(missing.map((i) => i.choice), ['byHand', 'other']);
  assert.match(missing[0].label, /Respond by hand$/);
  assert.match(missing[1].label, /Another command…$/);

  const usingHermes = agentChoiceItems('/opt/hermes/bin/hermes', ['/opt/hermes/bin/hermes', 'workflow', 'agent']);
  assert.deepEqual(usingHermes.map((i) => i.description.endsWith('· current')), [true, false, false]);
  const other = agentChoiceItems('/opt/hermes/bin/hermes', ['python3', '/agents/echo.py']);
  assert.equal(other[2].description, 'python3 /agents/echo.py · current');
});

test('shouldOfferHermes: only with no agent command, hermes found, "by hand" not chosen, not offered yet', () => {
  const base = { agentCommand: [] as string[], hermes: '/opt/hermes/bin/hermes', byHandChosen: false, offered: false };
  assert.equal(shouldOfferHermes(base), true);
  assert.equal(shouldOfferHermes({ ...base, agentCommand: ['python3', 'a.py'] }), false);
  assert.equal(shouldOfferHermes({ ...base, hermes: undefined }), false);
  assert.equal(shouldOfferHermes({ ...base, byHandChosen: true }), false);
  assert.equal(shouldOfferHermes({ ...base, offered: true }), false);
});

test('the notices name the command that sets the agent', () => {
  assert.match(NO_AGENT_COMMAND_NOTE, /Hermes Workflow: Choose Agent…/);
  assert.match(NO_AGENT_COMMAND_NOTE, /hwf\.agent\.command/);
  const offer = offerMessage('Run 3f2a of review', 'draft', '/opt/hermes/bin/hermes');
  assert.match(offer, /^Run 3f2a of review is waiting for an agent response to step "draft"/);
  assert.match(offer, /\/opt\/hermes\/bin\/hermes workflow agent/);
  assert.match(offer, /Choose Agent…/);
});
