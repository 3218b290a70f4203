"""The repository stands alone: no tracked file cites the product brief or a path outside
the repository, no tracked symlink points out of it, and every page in docs/ is listed in
the README's "Docs" section. Each check is a function tested on planted texts first, then
run over `git ls-files`."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

BRIEF = "PROD" + "UCT.md"
UP, WORK, SPEC = "../", "/" + "work/", "how-hermes-workflow-works" + ".txt"
"""The places this test looks for, spelt in parts (and `/wor[k]/` below) so that this file,
which the scan reads too, cites none of them, nor shows up in a `git grep` for them."""

CITATIONS = {
    "cites the product brief": re.compile(re.escape(BRIEF), re.IGNORECASE),
    "cites the folder beside the checkout": re.compile(r"(?<![\w.])(?:\.\./)+shared/"),
    "cites the build machine's /work": re.compile(r"(?<![\w/.-])/wor[k]/"),
    "cites the engine spec's file": re.compile(r"how-hermes-workflow-works\.txt"),
}
"""What a tracked file must not hold. The last three are the places outside the
repository that files once pointed at: the shared folder beside the checkout, the build
machine's work tree, the spec's text. The spec's contents the project relies on are
written in docs/ (docs/contracts.md, docs/decisions.md)."""


def citations(text: str) -> list[str]:
    """What `text` cites that lives outside the repository, one entry per kind."""
    return [kind for kind, pattern in CITATIONS.items() if pattern.search(text)]


def escapes_the_repository(link: str, target: str, root: Path) -> bool:
    """A symlink at `link` (relative to `root`) whose `target` resolves outside `root`."""
    resolved = Path(os.path.normpath(root / Path(link).parent / target))
    return not resolved.is_relative_to(root)


def unlisted_docs(readme: str, pages: list[str]) -> list[str]:
    """The pages (`docs/x.md`) that the README's "## Docs" section does not name."""
    section = re.search(r"^## Docs\n(.*?)(?=^## |\Z)", readme, re.M | re.S)
    named = set(re.findall(r"docs/[\w.-]+\.md", section.group(1))) if section else set()
    return [page for page in pages if page not in named]


@pytest.mark.parametrize(("text", "expected"), [
    ("The brief sets the defaults (" + BRIEF + ").", ["cites the product brief"]),
    ("see " + BRIEF.lower() + ", contracts", ["cites the product brief"]),
    ("the spec is at " + UP + "shared/spec/", ["cites the folder beside the checkout"]),
    ("`" + UP + UP + "shared/notes.md`", ["cites the folder beside the checkout"]),
    ("reported in " + WORK + "team/bugs.md", ["cites the build machine's /work"]),
    ('"' + WORK + 'main/.venv"', ["cites the build machine's /work"]),
    ("read spec/" + SPEC + " whole", ["cites the engine spec's file"]),
    ("docs/contracts.md, bench/README.md (\"Targets\")", []),
    ("../bench/README.md and ../../etc/passwd", []),
    ('"/cases/0/agents/work/1/error"', []),
    ("products.md and product.json", []),
])
def test_a_planted_citation_is_found(text, expected):
    assert citations(text) == expected


@pytest.mark.parametrize(("link", "target", "escapes"), [
    (".venv-main", WORK + "main/.venv", True),
    ("docs/spec.txt", UP + UP + "shared/spec.txt", True),
    ("vscode-extension/schemas/design.json", "../../schema/hermes-workflow-design.schema.json",
     False),
])
def test_a_planted_symlink_out_of_the_repository_is_found(link, target, escapes):
    assert escapes_the_repository(link, target, Path("/repo")) is escapes


@pytest.mark.parametrize(("readme", "expected"), [
    ("## Docs\n\n- docs/cli.md: the command\n- docs/run-history.md: runs\n", []),
    ("## Docs\n\n- docs/cli.md: the command\n\n## Next\n- docs/run-history.md\n",
     ["docs/run-history.md"]),
    ("# hwf-lsp\n\nsee docs/cli.md and docs/run-history.md\n",
     ["docs/cli.md", "docs/run-history.md"]),
])
def test_a_planted_unlisted_page_is_found(readme, expected):
    assert unlisted_docs(readme, ["docs/cli.md", "docs/run-history.md"]) == expected


def tracked() -> list[tuple[str, str]]:
    """(mode, path) of every file git tracks in this checkout."""
    try:
        listing = subprocess.run(["git", "ls-files", "-s", "-z"], cwd=REPO, check=True,
                                 capture_output=True).stdout.decode("utf-8")
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: nothing tells which files are the repository's")
    entries = [line.split("\t", 1) for line in listing.split("\0") if line]
    return [(meta.split()[0], path) for meta, path in entries]


def test_no_tracked_file_cites_what_lives_outside_the_repository():
    found = {}
    for mode, path in tracked():
        file = REPO / path
        if mode == "120000" or not file.is_file():
            continue
        data = file.read_bytes()
        if b"\0" in data:
            continue  # binary: images, fonts
        kinds = citations(data.decode("utf-8", "replace"))
        if kinds:
            found[path] = kinds
    assert found == {}


def test_no_tracked_symlink_points_out_of_the_repository():
    links = [path for mode, path in tracked() if mode == "120000"]
    assert [link for link in links
            if escapes_the_repository(link, os.readlink(REPO / link), REPO)] == []


def test_every_docs_page_is_listed_in_the_readme():
    pages = sorted(f"docs/{page.name}" for page in (REPO / "docs").glob("*.md"))
    assert pages, "no docs/*.md found"
    assert unlisted_docs((REPO / "README.md").read_text(encoding="utf-8"), pages) == []
