"""The editor's additions to the rulebook's words: did-you-mean on an `after` entry that
names no node (the same id the quick fix offers), the no-reject warning on approvals,
what hover on `options` says, and one finding for a text with no JSON value."""

from __future__ import annotations

import difflib
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hwf_lsp.analysis.findings import check_text
from hwf_lsp.analysis.fixes import fixes_for
from hwf_lsp.analysis.hover_text import hover
from hwf_lsp.analysis.suggestions import CUTOFF, closest
from hwf_lsp.jsontext.jsontree import parse
from hwf_lsp.workflow import validate_designer_graph

T = {"id": "start", "type": "trigger"}


def design(*nodes: dict) -> dict:
    return {"name": "d", "nodes": [T, *nodes]}


def agent(ident: str, *after: str) -> dict:
    return {"id": ident, "type": "agent", "prompt": "p", "after": list(after)}


# (case, design, the after entry, the id suggested or None)
AFTER = [
    ("a typo", design(agent("ask", "strat")), "strat", "start"),
    ("a dropped letter", design(agent("draft", "start"), agent("ask", "drft")), "drft", "draft"),
    ("nothing alike", design(agent("ask", "zzz")), "zzz", None),
    ("never a note", design({"id": "memo", "type": "note"}, agent("ask", "mem")), "mem", None),
    ("never itself", design(agent("draft", "draf")), "draf", None),
    ("never one listed already", design(agent("ask", "start", "strat")), "strat", None),
    ("'missing' is not 'ping'", design(agent("ping", "start"), agent("ask", "missing")),
     "missing", None),
]


@pytest.mark.parametrize(("value", "entry", "suggested"), [c[1:] for c in AFTER],
                         ids=[c[0] for c in AFTER])
def test_an_unknown_after_entry_gets_the_quick_fixs_id(value, entry, suggested):
    text = json.dumps(value)
    rulebook = f'no node has the id "{entry}"'
    contract = [d["msg"] for d in validate_designer_graph(value) if rulebook in d["msg"]]
    assert contract == [f"after[{value['nodes'][-1]['after'].index(entry)}]: {rulebook}"]
    doc, findings = check_text(text)
    [finding] = [f for f in findings if rulebook in f.msg]
    titles = [fix.title for fix in fixes_for(doc, [finding])]
    if suggested is None:
        assert finding.msg == contract[0]  # the rulebook's words, nothing added
        assert not any(t.startswith("Change to") for t in titles)
    else:
        assert finding.msg == f"{contract[0]} — did you mean '{suggested}'?"
        assert titles[0] == f"Change to '{suggested}'"


APPROVAL = {"id": "ship", "type": "approval", "question": "Ship?", "after": ["start"]}
# (case, fields of the approval, the fields warned about)
NO_REJECT = [
    ("options without reject", {"options": ["ship", "hold"]}, ["options"]),
    ("a deadline answering reject", {"options": ["ship"], "timeout_minutes": 5},
     ["options", "timeout_minutes"]),
    ("on_timeout: reject", {"options": ["ship"], "timeout_minutes": 5, "on_timeout": "reject"},
     ["options", "on_timeout"]),
    ("on_timeout: escalate", {"options": ["ship"], "timeout_minutes": 5,
                              "on_timeout": "escalate"}, ["options"]),
    ("a timeout that is no number: the rulebook's", {"options": ["ship"],
                                                     "timeout_minutes": "x"}, ["options"]),
    ("reject is an option", {"options": ["ship", "reject"], "timeout_minutes": 5}, []),
    ("the default options", {"timeout_minutes": 5}, []),
    ("options that are no list: the rulebook's", {"options": "ship"}, []),
    ("a non-string option: the rulebook's", {"options": ["ship", 3]}, []),
]


@pytest.mark.parametrize(("fields", "warned"), [c[1:] for c in NO_REJECT],
                         ids=[c[0] for c in NO_REJECT])
def test_no_reject_warnings(fields, warned):
    text = json.dumps(design({**APPROVAL, **fields}))
    _doc, findings = check_text(text)
    found = [f for f in findings if f.rule == "no-reject"]
    assert [f.field for f in found] == warned
    for finding in found:
        assert finding.severity == "warning" and finding.node == "ship"
        assert text[finding.start:finding.end] == json.dumps(fields[finding.field])


def test_hover_on_options_says_which_answer_prunes():
    text = json.dumps(design({**APPROVAL, "options": ["ship", "hold"]}))
    shown = hover(parse(text), text.index('"options"') + 2)
    assert shown is not None
    assert "`reject` prunes: it skips the approval and everything after it" in shown.markdown


@pytest.mark.parametrize(("options", "at", "says"), [
    (["ship", "reject"], '"reject"', "**reject** · approval answer — prunes"),
    (["ship", "reject"], '"ship"', "**ship** · approval answer — continues"),
    (["ship", "hold"], '"hold"', "Only `reject` prunes."),
])
def test_hover_on_an_option_says_whether_it_prunes(options, at, says):
    text = json.dumps(design({**APPROVAL, "options": options}))
    offset = text.index(at, text.index('"options"'))
    shown = hover(parse(text), offset + 1)
    assert shown is not None and says in shown.markdown
    assert text[shown.start:shown.end] == at


def test_no_option_hover_on_another_kinds_options_field():
    text = json.dumps(design({**agent("ask", "start"), "options": ["ship"]}))
    assert hover(parse(text), text.index('"ship"') + 1) is None


@pytest.mark.parametrize("text", ["", "   \n", "\t"])
def test_a_text_with_no_json_value_has_one_finding(text):
    _doc, findings = check_text(text)
    assert [f.rule for f in findings] == ["json-syntax"]


def test_closest_answers_what_get_close_matches_answers():
    """`closest` remembers pair scores; it must still pick what difflib picks, ties
    included (the larger candidate wins a tie, as in `get_close_matches`)."""
    import difflib
    import random

    from hwf_lsp.analysis.suggestions import closest

    rng = random.Random(5)
    letters = "abnde0125-"
    names = ["draft", "review", "publish", "sign-off", "n00025", "n00026", "ab", "ba"]
    for _ in range(3000):
        candidates = ["".join(rng.choice(letters) for _ in range(rng.randint(1, 8)))
                      for _ in range(rng.randint(0, 12))] + rng.sample(names, 3)
        word = rng.choice([*candidates, "revew", "n0002"]) if rng.random() < 0.5 else \
            "".join(rng.choice(letters) for _ in range(rng.randint(1, 8)))
        expected = difflib.get_close_matches(word, candidates, n=1, cutoff=0.6)
        assert closest(word, candidates) == (expected[0] if expected else None), \
            (word, candidates)


ALIKE_IDS = st.lists(st.text(alphabet="ab01-", min_size=0, max_size=8), max_size=30)


@given(word=st.text(alphabet="ab01-", max_size=8), candidates=ALIKE_IDS)
def test_closest_answers_as_difflib_does(word: str, candidates: list[str]) -> None:
    """The bounded search gives difflib's own answer, ties included (ids drawn from five
    characters, so many are equally alike)."""
    expected = difflib.get_close_matches(word, candidates, n=1, cutoff=CUTOFF)
    assert closest(word, candidates) == (expected[0] if expected else None)
