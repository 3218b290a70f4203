"""`hwf.runDesignTests [uri, case_names?]`: a design test file's cases run by the server.

The VS Code Test Explorer runs through it (the .vsix's bundled server, no `hwf` needed).
The cases run as `hwf test` runs them (`workflow/design_test_run.py`: in memory, no agent
or delivery command, nothing written to $HERMES_HOME), on the text the editor has (unsaved
edits included; a closed file is read from disk).  The answer gives each case's range and
each difference's values and range (the `expect` entry that differs), in the negotiated
position encoding, so a client places a failure where it is written.  A test file that
cannot run is an answer too, with its errors at their ranges, as the diagnostics show them.
Arguments and answer: docs/commands.md, "Design tests".
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from hwf_lsp.analysis.design_test_text import error_span, resolve
from hwf_lsp.jsontext.jsontree import ParsedDocument, parse
from hwf_lsp.jsontext.positions import LineIndex
from hwf_lsp.rules.design_test_check import TestFileError, examine_test_file, pointer
from hwf_lsp.server.design_test_documents import DesignSource, is_test_path
from hwf_lsp.server.documents import uri_to_path
from hwf_lsp.server.features.canvas import refusing
from hwf_lsp.server.features.commands import CommandError, bad_arguments
from hwf_lsp.workflow.design_test_files import read_test_text

if TYPE_CHECKING:
    from hwf_lsp.server.server import HwfServer

RUN_DESIGN_TESTS = "hwf.runDesignTests"
USAGE = "[uri, case_names?]"


class DesignTestCommand:
    """The handler, bound to one server."""

    def __init__(self, server: HwfServer) -> None:
        self.server = server

    async def run(self, *args: Any) -> dict[str, Any]:
        uri, names = _arguments(args)
        opened = self.server.open_text(uri)
        path = uri_to_path(uri)
        if opened is None and path is None:
            raise CommandError(f"{uri} is not open in the editor and is not a file")
        source = self.server.design_source()
        encoding = self.server.encoding
        return await asyncio.to_thread(run_file, uri, path or uri,
                                       opened[1] if opened else None, names, source, encoding)


def _arguments(args: tuple[Any, ...]) -> tuple[str, list[str] | None]:
    uri = args[0] if args else None
    if not isinstance(uri, str) or not uri:
        raise bad_arguments(USAGE, "missing uri (a *.hwf-test.json document)")
    if not is_test_path(uri_to_path(uri) or uri):
        raise bad_arguments(USAGE, f"{uri} is not a design test file (*.hwf-test.json)")
    names = args[1] if len(args) > 1 else None
    if names is not None and (not isinstance(names, list)
                              or not all(isinstance(n, str) for n in names)):
        raise bad_arguments(USAGE, "case_names must be a list of case names")
    return uri, names


def run_file(uri: str, path: str, text: str | None, names: list[str] | None,
             source: DesignSource, encoding: str) -> dict[str, Any]:
    """Run the cases of one test file (those `names` lists, else all): the answer."""
    from hwf_lsp.workflow.design_test_run import run_test_case  # the runner: on first use

    if text is None:
        try:
            text = read_test_text(path)
        except FileNotFoundError:
            raise CommandError(f"{path}: no such file") from None
    doc = parse(text)
    lines = LineIndex(text)
    answer: dict[str, Any] = {"uri": uri, "path": path, "design": None, "cases": [],
                              "errors": []}
    if doc.errors:
        first = doc.errors[0]
        answer["errors"] = [{"pointer": "", "case": None, "field": None,
                             "msg": f"not valid JSON: {first.msg}",
                             "range": _range(lines, first.start, first.end, encoding)}]
        return answer
    value = doc.to_python()
    found = source.find(value, path)
    test, errors = examine_test_file(value, path, found)
    if errors or test is None:
        answer["errors"] = [_error(doc, lines, error, encoding) for error in errors]
        return answer
    answer["design"] = test.design_ref
    unknown = [n for n in names or [] if n not in {c.name for c in test.cases}]
    if unknown:
        raise CommandError(f"{path} has no case named {unknown[0]!r}")
    for case in test.cases:
        if names is not None and case.name not in names:
            continue
        result = run_test_case(test, case)
        answer["cases"].append({
            "name": case.name, "index": case.index, "passed": result.passed,
            "failures": result.failures, "duration": round(result.seconds, 4),
            "range": _node_range(doc, lines, pointer("cases", case.index), encoding),
            "differences": [
                d.as_dict() | {"range": _node_range(
                    doc, lines, _expect_pointer(case.index, d.part, d.node), encoding)}
                for d in result.differences],
        })
    return answer


def _expect_pointer(index: int, part: str, node: str | None) -> str:
    return pointer("cases", index, "expect", part, *([node] if node is not None else []))


def _node_range(doc: ParsedDocument, lines: LineIndex, at: str,
                encoding: str) -> dict[str, Any]:
    node, _member = resolve(doc, at)
    if node is None:
        return _range(lines, 0, 0, encoding)
    return _range(lines, node.start, node.end, encoding)


def _error(doc: ParsedDocument, lines: LineIndex, error: TestFileError,
           encoding: str) -> dict[str, Any]:
    return error.as_dict() | {"range": _range(lines, *error_span(doc, error), encoding)}


def _range(lines: LineIndex, start: int, end: int, encoding: str) -> dict[str, Any]:
    (sl, sc), (el, ec) = lines.position(start, encoding), lines.position(end, encoding)
    return {"start": {"line": sl, "character": sc}, "end": {"line": el, "character": ec}}


def register(server: HwfServer) -> None:
    command = DesignTestCommand(server)
    server.command(RUN_DESIGN_TESTS)(refusing(server, RUN_DESIGN_TESTS, command.run))
