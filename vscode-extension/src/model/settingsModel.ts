/**
 * The settings' shapes and the pure functions over them: what the server receives
 * (initializationOptions `{settings}`, workspace/configuration answers,
 * didChangeConfiguration) and the design document selector. No VS Code API, so unit
 * tested; settings.ts reads the values from VS Code.
 */

export const CONFIG_SECTION = 'hwf';
export const DEFAULT_DESIGN_GLOBS: readonly string[] = ['**/workflow-designs/*.json', '**/*.hwf.json'];

export interface ExtensionSettings {
  pythonPath: string;
  agentCommand: string[];
  allowModelOverride: boolean;
  deliveryCommand: string[];
  hermesHome: string;
  designGlobs: string[];
}

/**
 * What the server reads. `runsEnabled` is the extension's addition: false in an
 * untrusted workspace, where the server must refuse to start or advance runs.
 */
export interface ServerSettings {
  agent: { command: string[]; allowModelOverride: boolean };
  delivery: { command: string[] };
  hermesHome: string;
  designs: { globs: string[] };
  runsEnabled: boolean;
}

export interface DesignFilter {
  language: string;
  scheme: string;
  pattern: string;
}

/** What `WorkspaceConfiguration.inspect` reports of one setting (the parts read here). */
export interface SettingValues<T> {
  defaultValue?: T;
  globalValue?: T;
  workspaceValue?: T;
  workspaceFolderValue?: T;
}

/**
 * A setting only the user may set (`"scope": "machine"` in package.json): the user's
 * value, else the default, never a workspace's. VS Code already ignores workspace values
 * of a machine-scoped setting; reading it this way keeps that true whatever the scope.
 */
export function userValue<T>(values: SettingValues<T> | undefined): T | undefined {
  return values?.globalValue ?? values?.defaultValue;
}

export function serverSettings(settings: ExtensionSettings, trusted: boolean): ServerSettings {
  return {
    agent: { command: settings.agentCommand, allowModelOverride: settings.allowModelOverride },
    delivery: { command: settings.deliveryCommand },
    hermesHome: settings.hermesHome,
    designs: { globs: settings.designGlobs },
    runsEnabled: trusted,
  };
}

/** The value at a dotted `section` (`hwf`, `hwf.agent`, ...) of the server settings. */
export function settingsSection(settings: ServerSettings, section: string | undefined): unknown {
  if (!section || section === CONFIG_SECTION) {
    return settings;
  }
  if (!section.startsWith(`${CONFIG_SECTION}.`)) {
    return undefined;
  }
  let value: unknown = settings;
  for (const key of section.slice(CONFIG_SECTION.length + 1).split('.')) {
    value = value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  }
  return value ?? null;
}

/** The document selector for design files: JSON and JSONC, on disk, matching a glob. */
export function designSelector(globs: readonly string[]): DesignFilter[] {
  const selector: DesignFilter[] = [];
  for (const pattern of globs) {
    for (const language of ['json', 'jsonc']) {
      selector.push({ language, scheme: 'file', pattern });
    }
  }
  return selector;
}

/** Design test files (`*.hwf-test.json`, contract 7): their name, not a setting, says so. */
export const TEST_FILE_FILTERS: readonly DesignFilter[] = ['json', 'jsonc'].map((language) => ({ language, scheme: 'file', pattern: '**/*.hwf-test.json' }));

/** What the language server is given: the designs under the globs and the design test files. */
export function serverSelector(globs: readonly string[]): DesignFilter[] {
  return [...designSelector(globs), ...TEST_FILE_FILTERS];
}

/** Globs from a raw setting value: strings only, blanks dropped, the defaults when none is left. */
export function designGlobsOf(value: unknown): string[] {
  const globs = Array.isArray(value) ? value.filter((g): g is string => typeof g === 'string' && g.trim() !== '') : [];
  return globs.length > 0 ? globs : [...DEFAULT_DESIGN_GLOBS];
}
