/**
 * "Hermes Workflow: Choose Agent…" and the one-time offer of the user's Hermes model: who
 * performs agent steps, written to `hwf.agent.command` in the workspace settings. The
 * choices and their argv are in agentChoiceModel.ts (pure, unit tested); this module finds
 * `hermes` on the extension host's PATH, shows the quick pick and the offer, and writes
 * the setting. `hwf.agent.command` is a restricted setting and runs execute it, so nothing
 * is written in Restricted Mode (trust.ts).
 */
import { joinCommandLine, splitCommandLine } from '../model/commandLine';
import * as fs from 'fs';
import * as vscode from 'vscode';
import {
  AgentChoiceKind,
  agentChoiceItems,
  BY_HAND,
  commandForChoice,
  executableNames,
  findOnPath,
  NO_HERMES_HINT,
  offerMessage,
  shouldOfferHermes,
  USE_HERMES,
} from '../model/agentChoiceModel';
import { UiCommand } from '../model/constants';
import { getLog } from './log';
import { ServerManager } from './server';
import { CONFIG_SECTION } from './settings';
import { AGENT_SETTING_REFUSED, ensureTrusted } from './trust';

/** workspaceState key: the user chose "Respond by hand" here, so the offer is not made again. */
const BY_HAND_KEY = 'hwf.agentChoice.byHand';
const SETTING = 'agent.command';

/** A regular file this process may execute. */
function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** `hermes` on the extension host's PATH (the environment VS Code was started with), as an absolute path. */
export function findHermes(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return findOnPath('hermes', env.PATH, isExecutable, { names: executableNames('hermes', process.platform, env.PATHEXT) });
}

/** What the user answered to the offer: the step now runs with Hermes, waits for them, or nothing was asked. */
export type OfferAnswer = 'hermes' | 'byHand' | 'dismissed' | 'notOffered';

export class AgentChoice implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  private offered = false;

  constructor(private readonly server: ServerManager, private readonly state: vscode.Memento) {
    this.disposables.push(vscode.commands.registerCommand(UiCommand.chooseAgent, () => this.choose()));
  }

  dispose(): void {
    this.disposables.forEach((d) => d.dispose());
  }

  /** The quick pick: your Hermes model (when found), respond by hand, another command. */
  async choose(): Promise<void> {
    if (!ensureTrusted(AGENT_SETTING_REFUSED)) {
      return;
    }
    const hermes = findHermes();
    const items = agentChoiceItems(hermes, this.server.settings.agentCommand);
    const picked = await vscode.window.showQuickPick(items, {
      title: 'Who performs agent steps?',
      placeHolder: hermes ? 'Your Hermes model, by hand, or another command' : NO_HERMES_HINT,
      matchOnDescription: true,
      matchOnDetail: true,
    });
    if (picked) {
      await this.apply(picked.choice, hermes);
    }
  }

  /**
   * Offered once when a run the user advanced parks at an agent step with no agent command
   * set and `hermes` on PATH (a non-modal message). "Respond by hand" is remembered for
   * the workspace; a dismissed offer is not repeated in this window.
   */
  async offerHermes(runLabel: string, step: string): Promise<OfferAnswer> {
    const hermes = findHermes();
    const state = {
      agentCommand: this.server.settings.agentCommand,
      hermes,
      byHandChosen: this.state.get<boolean>(BY_HAND_KEY) === true,
      offered: this.offered,
    };
    if (!hermes || !shouldOfferHermes(state)) {
      return 'notOffered';
    }
    this.offered = true;
    const answer = await vscode.window.showInformationMessage(offerMessage(runLabel, step, hermes), USE_HERMES, BY_HAND);
    if (answer === USE_HERMES) {
      return (await this.apply('hermes', hermes)) ? 'hermes' : 'dismissed';
    }
    if (answer === BY_HAND) {
      await this.apply('byHand', hermes);
      return 'byHand';
    }
    return 'dismissed';
  }

  /** "Another command…": the command typed in one line (split as a shell would, never run by one). */
  private async askCommand(): Promise<string[] | undefined> {
    const current = vscode.workspace.getConfiguration(CONFIG_SECTION).get<unknown>(SETTING);
    const line = await vscode.window.showInputBox({
      title: 'Agent command',
      prompt: 'The command that performs agent steps: it gets a JSON request on stdin and answers on stdout. Quotes group words; nothing is expanded.',
      placeHolder: 'python3 /path/to/agent.py',
      value: Array.isArray(current) ? joinCommandLine(current.map(String)) : '',
      validateInput: (text) => {
        const argv = splitCommandLine(text);
        return 'error' in argv ? argv.error : argv.length === 0 ? 'Type a command (or choose "Respond by hand")' : undefined;
      },
    });
    const argv = line === undefined ? undefined : splitCommandLine(line);
    return argv && !('error' in argv) && argv.length > 0 ? argv : undefined;
  }

  /** Writes the choice ("Another command…" asks for it first); true once the server has it. */
  private async apply(kind: AgentChoiceKind, hermes: string | undefined): Promise<boolean> {
    const command = kind === 'other' ? await this.askCommand() : commandForChoice(kind, hermes);
    if (!command || !ensureTrusted(AGENT_SETTING_REFUSED)) {
      return false;
    }
    await this.state.update(BY_HAND_KEY, kind === 'byHand' ? true : undefined);
    const target = vscode.workspace.workspaceFolders?.length ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
    try {
      await vscode.workspace.getConfiguration(CONFIG_SECTION).update(SETTING, command, target);
    } catch (error) {
      void vscode.window.showErrorMessage(`Hermes Workflow: could not write hwf.agent.command: ${error instanceof Error ? error.message : String(error)}`);
      return false;
    }
    // The change event has told the server by now; telling it again is harmless and makes
    // sure a run resumed right after this performs its step with the new command.
    this.server.pushSettings();
    getLog().info(`hwf.agent.command (${target === vscode.ConfigurationTarget.Workspace ? 'workspace' : 'user'} settings) = ${JSON.stringify(command)}`);
    const shown = kind === 'hermes' ? `your Hermes model (${command.join(' ')})` : kind === 'other' ? joinCommandLine(command) : 'you: agent steps wait for your response';
    vscode.window.setStatusBarMessage(`$(check) Agent steps: ${shown}`, 8000);
    return true;
  }
}
