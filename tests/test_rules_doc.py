"""docs/rules.md has an anchor per rule code, and every diagnostic links to it."""

from __future__ import annotations

import re
from pathlib import Path

from hwf_lsp.rules.vocabulary import EDITOR_RULES, RULES
from hwf_lsp.server.convert import RULE_LINKS, RULES_DOC

DOC = Path(__file__).resolve().parents[1] / "docs" / "rules.md"


def test_every_rule_code_has_an_anchor():
    anchors = set(re.findall(r'<a id="([a-z-]+)"></a>', DOC.read_text(encoding="utf-8")))
    assert anchors == set(RULES) | set(EDITOR_RULES)


def test_every_rule_code_links_into_the_doc():
    assert RULES_DOC == DOC
    assert set(RULE_LINKS) == set(RULES) | set(EDITOR_RULES)
    for code, link in RULE_LINKS.items():
        assert link == f"{DOC.as_uri()}#{code}"


def test_the_decisions_page_keeps_to_300_lines():
    """docs/decisions.md holds the decisions in force and their figures; history is git's."""
    lines = (DOC.parent / "decisions.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 300, len(lines)
