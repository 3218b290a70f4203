"""Emacs's stock completion UI on hwf-lsp (issue 43): `C-M-i` and *Completions*.

With no completion package, `C-M-i` (`completion-at-point`) inserts the candidates' common
prefix, completes a sole match, or lists the candidates in *Completions*, where one is
chosen. A partial completion must never write text that is not the intended JSON: after
every `C-M-i` or choice the buffer is as it was, or valid JSON. At each position of the
acceptance table (tests/editors/completion_positions.json): `C-M-i` twice, then the first
entry of *Completions* chosen; and the issue's case: `C-M-i` twice after `,` between nodes,
then `c` and `C-M-i` gives a condition node.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from editor_support import run_eglot
from test_completion_accept import TABLE, cases, squeeze

HERE = Path(__file__).parent
SEQUENCE = ["C-M-i", "C-M-i", "choose"]
BETWEEN_NODES = {"name": "after ',' between nodes: C-M-i twice, then c, C-M-i",
                 "actions": ["C-M-i", "C-M-i", "c", "C-M-i"],
                 "expected": '"type":"condition"'}


def capf_cases() -> list[dict]:
    out = [dict(case, actions=SEQUENCE, expected=None) for case in cases() if case["pick"] is None]
    between = next(c for c in cases() if c["name"] == "bare completion after ','")
    out.append(dict(between, **BETWEEN_NODES))
    return out


def verdict(case: dict, steps: list[dict]) -> str:
    """'ok', or the first step that wrote what is not the intended JSON."""
    before = "\n".join(case["lines"])
    for step in steps:
        text = "\n".join(step["lines"])
        if step["action"] in ("C-M-i", "choose") and text != before:
            try:
                json.loads(text)
            except ValueError:
                return f"{step['action']} wrote {squeeze(text)[-90:]}"
        before = text
    if case["expected"] and case["expected"] not in squeeze(before):
        return f"not {case['expected']}: {squeeze(before)[-90:]}"
    return "ok" if before != "\n".join(case["lines"]) else "ok (unchanged)"


@pytest.mark.parametrize("yasnippet", [False, True], ids=["eglot", "eglot-yasnippet"])
def test_partial_completion_never_writes_what_is_not_the_json(yasnippet: bool,
                                                              tmp_path: Path) -> None:
    asked = capf_cases()
    (tmp_path / "cases.json").write_text(json.dumps(asked), encoding="utf-8")
    design = tmp_path / "capf.hwf.json"
    design.write_text("\n".join(asked[0]["lines"]) + "\n", encoding="utf-8")
    seen = run_eglot(HERE / "eglot_capf.el", yasnippet, tmp_path, HWF_DESIGN=str(design),
                     HWF_CASES=str(tmp_path / "cases.json"))
    verdicts = [(case["name"], verdict(case, steps))
                for case, steps in zip(asked, seen["results"], strict=True)]
    print()
    for name, said in verdicts:
        print(f"  {name:52} {said}")
    assert len(verdicts) == len(TABLE["positions"]) + 1
    assert all(said.startswith("ok") for _, said in verdicts), verdicts
