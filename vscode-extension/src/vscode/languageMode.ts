/**
 * Designs and design test files have languages of their own (docs/decisions.md,
 * "Designs have a language of their own"). package.json gives them by file name for the
 * default globs; a file matched only by a glob of `hwf.designs.globs`, or opened before
 * the extension was active, is given its language here when it opens as JSON.
 */
import * as vscode from 'vscode';
import { TEST_FILE_SUFFIX } from '../model/designTestModel';
import { DESIGN_LANGUAGE, JSON_LANGUAGES, jsonDesignSelector, TEST_FILE_LANGUAGE } from '../model/settingsModel';
import { getLog } from './log';

/** The language `document` should have, or undefined to leave it as it is. */
export function languageFor(document: vscode.TextDocument, globs: readonly string[]): string | undefined {
  if (!JSON_LANGUAGES.includes(document.languageId)) {
    return undefined; // already ours, or a language the user chose
  }
  if (document.uri.scheme === 'file' && document.uri.path.endsWith(TEST_FILE_SUFFIX)) {
    return TEST_FILE_LANGUAGE;
  }
  return vscode.languages.match(jsonDesignSelector(globs), document) > 0 ? DESIGN_LANGUAGE : undefined;
}

/**
 * Give a JSON document matching the globs the designs' language. VS Code reopens it
 * (onDidOpenTextDocument fires again with the new language). Once per document: a user
 * who then picks JSON from the language picker keeps JSON.
 */
export class DesignLanguage {
  private readonly given = new Set<string>();

  async adopt(document: vscode.TextDocument, globs: readonly string[]): Promise<void> {
    const language = languageFor(document, globs);
    const key = document.uri.toString();
    if (!language || this.given.has(key)) {
      return;
    }
    this.given.add(key);
    try {
      await vscode.languages.setTextDocumentLanguage(document, language);
    } catch (error) {
      getLog().warn(`Cannot give ${document.uri.fsPath} the language ${language}: ${String(error)}`);
    }
  }
}
