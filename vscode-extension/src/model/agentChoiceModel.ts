/**
 * Who performs agent steps, as the user picks it ("Hermes Workflow: Choose Agent…"): the
 * user's Hermes model (`hermes workflow agent`, when `hermes` is on PATH), the user by hand
 * (no agent command), or another command. Pure: finding `hermes` takes the PATH string and
 * an `isExecutable` probe, so it is unit tested without a file system; agentChoice.ts does
 * the VS Code and file system parts.
 */
import * as path from 'path';

export type AgentChoiceKind = 'hermes' | 'byHand' | 'other';

/** The subcommand of the Hermes CLI that speaks the agent-seam protocol (docs/hermes.md). */
export const HERMES_AGENT_ARGS: readonly string[] = ['workflow', 'agent'];

/** The names `hermes` may have in a PATH directory: on Windows, with PATHEXT's extensions. */
export function executableNames(name: string, platform: string, pathExt: string | undefined): string[] {
  if (platform !== 'win32') {
    return [name];
  }
  const extensions = (pathExt || '.COM;.EXE;.BAT;.CMD').split(';').filter((e) => e !== '');
  return [...extensions.map((e) => name + e.toLowerCase()), name];
}

export interface FindOptions {
  delimiter?: string;
  /** Names to try in each directory (default: `[name]`, see executableNames). */
  names?: readonly string[];
}

/**
 * The first executable `name` in the PATH string's directories, as an absolute path; else
 * undefined. Only absolute directories count: an empty or relative entry would mean the
 * current directory, which may be a repository the user has not vetted.
 */
export function findOnPath(
  name: string,
  pathValue: string | undefined,
  isExecutable: (file: string) => boolean,
  { delimiter = path.delimiter, names = [name] }: FindOptions = {},
): string | undefined {
  for (const dir of (pathValue ?? '').split(delimiter)) {
    if (dir === '' || !path.isAbsolute(dir)) {
      continue;
    }
    for (const candidate of names) {
      const file = path.join(dir, candidate);
      if (isExecutable(file)) {
        return file;
      }
    }
  }
  return undefined;
}

/** The `hwf.agent.command` argv that performs steps with the user's Hermes model. */
export function hermesAgentCommand(hermes: string): string[] {
  return [hermes, ...HERMES_AGENT_ARGS];
}

/** Which choice an `hwf.agent.command` value is: any `hermes` running `workflow agent` is the Hermes model. */
export function choiceOfCommand(command: readonly string[]): AgentChoiceKind {
  if (command.length === 0) {
    return 'byHand';
  }
  const program = path.basename(command[0]).replace(/\.(exe|cmd|bat|com)$/i, '');
  const rest = command.slice(1);
  return program === 'hermes' && rest.length === HERMES_AGENT_ARGS.length && rest.every((a, i) => a === HERMES_AGENT_ARGS[i])
    ? 'hermes'
    : 'other';
}

export interface AgentChoiceItem {
  /** Not `kind`: a QuickPickItem's `kind` means separator or item. */
  choice: AgentChoiceKind;
  label: string;
  description: string;
  detail: string;
}

/** Shown in the quick pick when `hermes` is not on PATH, so the missing item is explained. */
export const NO_HERMES_HINT = 'No `hermes` on PATH: install Hermes Agent to perform agent steps with your Hermes model.';

/**
 * The quick pick's items: "Your Hermes model" only when `hermes` was found (its path in
 * the detail), "Respond by hand", "Another command…"; the current choice says so.
 */
export function agentChoiceItems(hermes: string | undefined, command: readonly string[]): AgentChoiceItem[] {
  const current = choiceOfCommand(command);
  const mark = (kind: AgentChoiceKind, text: string) => (kind === current ? `${text} · current` : text);
  const items: AgentChoiceItem[] = [];
  if (hermes) {
    items.push({
      choice: 'hermes',
      label: '$(hubot) Your Hermes model',
      description: mark('hermes', 'each step goes to the model in your Hermes config'),
      detail: `${hermes} ${HERMES_AGENT_ARGS.join(' ')}`,
    });
  }
  items.push({
    choice: 'byHand',
    label: '$(edit) Respond by hand',
    description: mark('byHand', 'no agent command'),
    detail: 'Agent steps wait at "awaiting agent" until you respond',
  });
  items.push({
    choice: 'other',
    label: '$(terminal) Another command…',
    description: mark('other', current === 'other' ? command.join(' ') : 'hwf.agent.command'),
    detail: 'Type the command (it gets a JSON request on stdin and answers on stdout)',
  });
  return items;
}

/** The argv a choice writes to `hwf.agent.command`; undefined for "Another command…" (the user writes it). */
export function commandForChoice(kind: AgentChoiceKind, hermes: string | undefined): string[] | undefined {
  if (kind === 'hermes') {
    return hermes ? hermesAgentCommand(hermes) : undefined;
  }
  return kind === 'byHand' ? [] : undefined;
}

export interface OfferState {
  agentCommand: readonly string[];
  hermes: string | undefined;
  /** The user chose "Respond by hand" in this workspace (kept in its workspaceState). */
  byHandChosen: boolean;
  /** Offered already since the window opened (a dismissed offer is not repeated). */
  offered: boolean;
}

/** Whether a run parked at an agent step should offer the user's Hermes model. */
export function shouldOfferHermes(state: OfferState): boolean {
  return state.agentCommand.length === 0 && state.hermes !== undefined && !state.byHandChosen && !state.offered;
}

/** The palette title of the command, as the notices name it. */
export const CHOOSE_AGENT_TITLE = 'Hermes Workflow: Choose Agent…';

/** The end of the "waiting for an agent response" notice when no agent command is set. */
export const NO_AGENT_COMMAND_NOTE = ` (no agent command is set: run "${CHOOSE_AGENT_TITLE}" or set hwf.agent.command).`;

export const USE_HERMES = 'Use my Hermes model';
export const BY_HAND = 'Respond by hand';

/** The offer shown once when a run parks at an agent step and `hermes` is found. */
export function offerMessage(runLabel: string, step: string, hermes: string): string {
  return `${runLabel} is waiting for an agent response to step "${step}": no agent command is set. ` +
    `Perform agent steps with your Hermes model (${hermes} ${HERMES_AGENT_ARGS.join(' ')})? ` +
    `You can change this later with "${CHOOSE_AGENT_TITLE}".`;
}
