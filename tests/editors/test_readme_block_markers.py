"""Each editor block of the README (its Editors sections) names the tests that run it (issue 43): the line above
its `<!-- tested: NAME -->` / `<!-- documented: NAME -->` marker lists test files, and each
listed file exists and reads that block (it names it, or runs a client table that does)."""

from __future__ import annotations

import re

from editor_support import README, REPO

MARKED = re.compile(r"<!-- (?:run verbatim|parsed \(not run\)) by tests/editors/:? ?([^>]*?)"
                    r"(?: \(after the block above\))? -->\n<!-- (tested|documented): ([\w.-]+) -->")


def test_every_editor_block_names_the_tests_that_run_it() -> None:
    text = README.read_text(encoding="utf-8")
    text = text[text.index("\n## Editors"):text.index("\n## Use it from Hermes")]
    blocks = re.findall(r"<!-- (?:tested|documented): ([\w.-]+) -->", text)
    marked = MARKED.findall(text)
    assert sorted(name for _, _, name in marked) == sorted(blocks), "a block without its tests"
    for files, _kind, name in marked:
        for listed in re.split(r",\s*", files.strip()):
            path = REPO / "tests" / "editors" / listed.removeprefix("tests/editors/")
            assert path.is_file(), f"{name}: {listed} does not exist"
            source = path.read_text(encoding="utf-8")
            client = name.replace("emacs-", "")  # the client tables name eglot configs so
            assert name in source or client in source, f"{listed} never reads {name}"
