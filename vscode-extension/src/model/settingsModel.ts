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

/**
 * The designs' own language id (docs/decisions.md, "Designs have a language of their
 * own"): the server's formatter and outline are then the only ones a design has, and
 * VS Code's JSON features keep every other JSON file to themselves.
 */
export const DESIGN_LANGUAGE = 'hermes-workflow';
/** The design test files' language id (`*.hwf-test.json`), for the same reason. */
export const TEST_FILE_LANGUAGE = 'hermes-workflow-test';
/** The languages a file matching the globs may have been opened in before it is given its own. */
export const JSON_LANGUAGES: readonly string[] = ['json', 'jsonc'];
export const TEST_FILE_PATTERN = '**/*.hwf-test.json';

/** The document selector for design files: the designs' language, on disk, matching a glob. */
export function designSelector(globs: readonly string[]): DesignFilter[] {
  return globs.map((pattern) => ({ language: DESIGN_LANGUAGE, scheme: 'file', pattern }));
}

/** JSON files matching the globs: the designs still to be given their own language. */
export function jsonDesignSelector(globs: readonly string[]): DesignFilter[] {
  return globs.flatMap((pattern) => JSON_LANGUAGES.map((language) => ({ language, scheme: 'file', pattern })));
}

/** Design test files (`*.hwf-test.json`, contract 7): their name, not a setting, says so. */
export const TEST_FILE_FILTERS: readonly DesignFilter[] = [{ language: TEST_FILE_LANGUAGE, scheme: 'file', pattern: TEST_FILE_PATTERN }];

/** What the language server is given: the designs under the globs and the design test files. */
export function serverSelector(globs: readonly string[]): DesignFilter[] {
  return [...designSelector(globs), ...TEST_FILE_FILTERS];
}

/** Globs from a raw setting value: strings only, blanks dropped, the defaults when none is left. */
export function designGlobsOf(value: unknown): string[] {
  const globs = Array.isArray(value) ? value.filter((g): g is string => typeof g === 'string' && g.trim() !== '') : [];
  return globs.length > 0 ? globs : [...DEFAULT_DESIGN_GLOBS];
}
