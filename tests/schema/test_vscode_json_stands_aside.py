"""VS Code's own JSON features stand aside in design files (issue 15: "trigger" offered twice).

The duplicate came from VS Code's JSON language features: without a schema they propose
every value seen for the same key elsewhere in the document (`"trigger"`, with quotes,
next to the server's `trigger`), and every key of sibling objects.  The extension
associates design files with a schema that allows everything and proposes nothing
(`contributes.jsonValidation`), so only the Hermes Workflow server completes them.
These tests run VS Code's JSON engine with that association, as VS Code makes it.
"""

from __future__ import annotations

import json

from schema_corpus import REPO
from vscode_engine import needs_vscode_engine, run_vscode_engine

EXTENSION = REPO / "vscode-extension"
MANIFEST = json.loads((EXTENSION / "package.json").read_text(encoding="utf-8"))
DEFAULT_GLOBS = MANIFEST["contributes"]["configuration"]["properties"]["hwf.designs.globs"][
    "default"]

DESIGN = ('{"name": "d", "nodes": [\n  {"id": "start", "type": "trigger", "title": "Go"},\n'
          '  {"id": "next", "type": "", "after": ["start"], }\n]}')
TYPE_VALUE = DESIGN.index('""') + 1
KEY_SPOT = DESIGN.index(', }') + 2


def association() -> tuple[list[str], dict]:
    (entry,) = MANIFEST["contributes"]["jsonValidation"]
    schema = json.loads((EXTENSION / entry["url"]).read_text(encoding="utf-8"))
    return entry["fileMatch"], schema


def test_design_files_are_associated_and_the_schema_ships():
    file_match, schema = association()
    assert sorted(file_match) == sorted(glob.removeprefix("**/") if glob.startswith("**/*.")
                                        else glob for glob in DEFAULT_GLOBS)
    assert schema["$schema"] and "properties" not in schema and "enum" not in json.dumps(schema)
    url = MANIFEST["contributes"]["jsonValidation"][0]["url"]
    shipped = (EXTENSION / ".vscodeignore").read_text(encoding="utf-8").splitlines()
    assert url.startswith("./schemas/") and "!schemas/*.json" in shipped  # in the .vsix


@needs_vscode_engine
def test_vscode_json_proposes_nothing_in_designs_and_still_does_elsewhere():
    file_match, schema = association()
    uris = ["file:///ws/flow.hwf.json", "file:///ws/workflow-designs/nightly.json",
            "file:///ws/package.json"]
    requests = [[DESIGN, spot, uri] for uri in uris for spot in (TYPE_VALUE, KEY_SPOT)]
    with_schema = run_vscode_engine({"schema": schema, "fileMatch": file_match,
                                     "documents": [], "completions": requests})["completions"]
    without = run_vscode_engine({"schema": None, "documents": [],
                                 "completions": requests[:2]})["completions"]
    assert '"trigger"' in without[0]  # the cause: the value seen on the first node
    assert without[1]  # and sibling keys
    assert with_schema[:4] == [[], [], [], []]  # both design globs: nothing proposed
    assert '"trigger"' in with_schema[4]  # other JSON files keep VS Code's completion
