// Probes each peer library feature by feature on a document of its own language, the way
// bench/peers-features/compare.py probes hwf-lsp over LSP: for every feature, whether the
// library has it and what it answers at the probe position.  Prints JSON:
// {peer: {feature: "answer"}}; "—" = no such feature.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { TextDocument } from "vscode-languageserver-textdocument";
import * as json from "vscode-json-languageservice";
import * as asl from "amazon-states-language-service";
import * as actions from "@actions/languageservice";

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, "..", "..");
const NONE = "—";
const FORMAT = { tabSize: 2, insertSpaces: true };

function count(result, noun = "items") {
  const items = Array.isArray(result) ? result : result?.items ?? (result ? [result] : []);
  return items.length ? `${items.length} ${noun}` : "empty";
}

function diagnosticsSummary(diagnostics) {
  const extras = [];
  if (diagnostics.some((d) => d.relatedInformation?.length)) extras.push("related");
  if (diagnostics.some((d) => d.tags?.length)) extras.push("tags");
  if (diagnostics.some((d) => d.codeDescription)) extras.push("links");
  return count(diagnostics) + (extras.length ? ` (${extras.join(", ")})` : "");
}

function depth(selection) {
  let n = 0;
  for (let s = selection; s; s = s.parent) n++;
  return n ? `${n} levels` : "empty";
}

function docAt(path, language) {
  const text = readFileSync(path, "utf8");
  const doc = TextDocument.create("file://" + path, language, 1, text);
  const at = (needle, shift = 0) => doc.positionAt(text.indexOf(needle) + shift);
  return { text, doc, at };
}

async function attempt(run) {
  try {
    return await run();
  } catch (error) {
    return `fails (${String(error.message ?? error).slice(0, 60)})`;
  }
}

async function probeJsonService(service, path, spots) {
  const { doc, at } = docAt(path, "json");
  const parsed = service.parseJSONDocument(doc);
  const has = (name) => typeof service[name] === "function";
  const probes = {
    diagnostics: ["doValidation", async () => diagnosticsSummary(
      await service.doValidation(doc, parsed, {}))],
    completion: ["doComplete", async () => count(
      await service.doComplete(doc, at(...spots.completion), parsed))],
    hover: ["doHover", async () => (await service.doHover(doc, at(...spots.hover), parsed))
      ? "answers" : "empty"],
    definition: ["findDefinition", async () => count(
      await service.findDefinition(doc, at(...spots.reference), parsed), "locations")],
    documentSymbol: ["findDocumentSymbols2", async () => count(
      service.findDocumentSymbols2(doc, parsed), "symbols (tree)")],
    formatting: ["format", async () => count(service.format(doc, undefined, FORMAT), "edits")],
    rangeFormatting: ["format", async () => count(service.format(doc, {
      start: at(...spots.hover), end: at(...spots.reference) }, FORMAT), "edits")],
    foldingRange: ["getFoldingRanges", async () => count(service.getFoldingRanges(doc),
      "ranges")],
    selectionRange: ["getSelectionRanges", async () => depth(
      service.getSelectionRanges(doc, [at(...spots.hover)], parsed)[0])],
    documentLink: ["findLinks", async () => count(await service.findLinks(doc, parsed),
      "links")],
    documentColor: ["findDocumentColors", async () => count(
      await service.findDocumentColors(doc, parsed), "colors")],
  };
  const out = {};
  for (const [feature, [fn, run]] of Object.entries(probes)) {
    out[feature] = has(fn) ? await attempt(run) : NONE;
  }
  return out;
}

async function probeActions(path) {
  const { doc, at } = docAt(path, "yaml");
  const diagnostics = await actions.validate(doc);
  return {
    diagnostics: diagnosticsSummary(diagnostics),
    completion: await attempt(async () => count(await actions.complete(doc,
      at("runs-on: ubuntu", 9)))),
    hover: await attempt(async () => (await actions.hover(doc, at("runs-on", 2)))
      ? "answers" : "empty"),
    documentLink: await attempt(async () => count(await actions.documentLinks(doc, undefined),
      "links")),
    inlayHint: await attempt(async () => count(actions.getInlayHints(doc), "hints")),
    codeAction: await attempt(async () => count(actions.getCodeActions({ uri: doc.uri,
      diagnostics, documentContent: doc.getText() }), "actions")),
  };
}

const schema = JSON.parse(readFileSync(join(repo, "schema",
  "hermes-workflow-design.schema.json"), "utf8"));
const design = join(here, "samples", "design.hwf.json");
const jsonService = json.getLanguageService({});
jsonService.configure({ validate: true, schemas: [{ uri: "hwf://schema",
  fileMatch: ["*.hwf.json"], schema }] });
const results = {
  "vscode-json-languageservice": await probeJsonService(
    jsonService, design,
    { completion: ['"retries": 9,', 13], hover: ['"retries"', 2], reference: ['["draft"]', 3] }),
  "amazon-states-language-service": await probeJsonService(
    asl.getLanguageService({}), join(here, "samples", "state-machine.asl.json"),
    { completion: ['"Next": "Review"', 9], hover: ['"Type": "Choice"', 2],
      reference: ['"Next": "Review"', 10] }),
  "@actions/languageservice": await probeActions(join(here, "samples", "workflow.yml")),
};
process.stdout.write(JSON.stringify(results, null, 2) + "\n");
