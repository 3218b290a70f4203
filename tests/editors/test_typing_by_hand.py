"""Typing by hand in real clients leaves exactly the typed text (issue 43).

Each README config (client x config) types each case character by character at a
person's speed, never accepting an item: 60-160 ms a key, 200-350 ms after `:`, `,` and
a space (where a person pauses, and where completion opens). The buffer afterwards must be
the text before with the typed text inserted where the cursor was. The cases: a new
2-node design from an empty file, `, "retries": 2` typed inside an existing node, and
the keys and values of a design test file's `steps` map typed inside its `expect`.
The table printed at the end is the issue's "typing tests per client config".
"""

from __future__ import annotations

import json
import random
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest
from editor_support import REPO, editor, run_eglot, run_neovim, snippet
from test_completion_accept import NEOVIM_011

HERE = Path(__file__).parent


@dataclass(frozen=True)
class Case:
    name: str
    file: str
    """The file name: a design (`*.hwf.json`) or a design test file (`*.hwf-test.json`)."""
    lines: tuple[str, ...]
    """The buffer before typing; the cursor is at `‸`."""
    typed: str


NODE = '  {"id": "draft", "type": "agent", "prompt": "Draft it.", "after": ["start"]‸}'
CASES = [
    Case("a new 2-node design", "new.hwf.json", ("‸",),
         '{"name": "flow", "nodes": [{"id": "start", "type": "trigger"}, '
         '{"id": "draft", "type": "agent", "prompt": "Draft it.", "after": ["start"]}]}'),
    Case("retries inside a node", "edit.hwf.json",
         ('{"name": "flow", "nodes": [', '  {"id": "start", "type": "trigger"},', NODE, "]}"),
         ', "retries": 2'),
    Case("a test file's steps", "review-flow.hwf-test.json",
         ('{"design": "review-flow.hwf.json", "cases": [',
          '  {"name": "approved", "answers": {"sign-off": "approve"},',
          '   "expect": {"status": "completed", ‸}}', "]}"),
         '"steps": {"draft": "done", "publish": "done"}'),
]
CURSOR = "‸"


def keys(text: str, seed: int) -> list[tuple[str, int]]:
    """Each character with the delay before it (ms): a person's uneven speed, slower after
    `:`, `,` and a space. Seeded: a failure replays."""
    rng = random.Random(seed)
    out = []
    previous = ""
    for char in text:
        pause = previous in ":, "
        out.append((char, rng.randint(200, 350) if pause else rng.randint(60, 160)))
        previous = char
    return out


def start(case: Case) -> tuple[list[str], int, int]:
    """The lines without the cursor mark, and the cursor's (line, column)."""
    lines = list(case.lines)
    row = next(i for i, line in enumerate(lines) if CURSOR in line)
    col = lines[row].index(CURSOR)
    lines[row] = lines[row].replace(CURSOR, "")
    return lines, row, col


def wanted(case: Case) -> list[str]:
    """The lines once the text is typed at the cursor."""
    return [line.replace(CURSOR, case.typed) for line in case.lines]


def prepare(tmp_path: Path) -> list[dict]:
    """The files each case opens (the design a test file names beside it), and the cases as
    the drivers read them."""
    shutil.copy(REPO / "examples" / "review-flow.hwf.json", tmp_path / "review-flow.hwf.json")
    out = []
    for seed, case in enumerate(CASES):
        lines, row, col = start(case)
        path = tmp_path / case.file
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        out.append({"name": case.name, "file": str(path), "lines": lines, "line": row,
                    "col": col, "keys": keys(case.typed, seed)})
    return out


def run_nvim(binary: str, config: str, tmp_path: Path) -> dict:
    asked = prepare(tmp_path)
    (tmp_path / "cases.json").write_text(json.dumps(asked), encoding="utf-8")
    return run_neovim(binary, config, HERE / "neovim_type.lua", tmp_path,
                      HWF_CASES=str(tmp_path / "cases.json"))


def run_emacs(yasnippet: bool, tmp_path: Path) -> dict:
    asked = prepare(tmp_path)
    (tmp_path / "cases.json").write_text(json.dumps(asked), encoding="utf-8")
    return run_eglot(HERE / "eglot_type.el", yasnippet, tmp_path,
                     HWF_CASES=str(tmp_path / "cases.json"))


CLIENTS = {
    # client config: how it runs (the README snippets it is made of)
    "neovim-0.11-completion": lambda tmp: run_nvim(
        editor(NEOVIM_011, "Neovim 0.11"),
        snippet("tested", "neovim-0.11") + snippet("tested", "neovim-0.11-completion"), tmp),
    "neovim-0.11-omnifunc": lambda tmp: run_nvim(
        editor(NEOVIM_011, "Neovim 0.11"), snippet("tested", "neovim-0.11"), tmp),
    "neovim-0.7": lambda tmp: run_nvim(
        editor(shutil.which("nvim"), "Neovim 0.7"), snippet("tested", "neovim-0.7"), tmp),
    "eglot": lambda tmp: run_emacs(False, tmp),
    "eglot-yasnippet": lambda tmp: run_emacs(True, tmp),
}


@pytest.mark.parametrize("client", CLIENTS)
def test_typing_by_hand_leaves_exactly_the_typed_text(client: str, tmp_path: Path) -> None:
    seen = CLIENTS[client](tmp_path)
    print(f"\n{client} (completeopt {seen.get('completeopt', '-')}):")
    wrong = []
    for case, result in zip(CASES, seen["results"], strict=True):
        delays = [ms for _, ms in keys(case.typed, CASES.index(case))]
        same = result["lines"] == wanted(case)
        print(f"  {case.name:24} {len(case.typed):3} keys, {min(delays)}-{max(delays)} ms: "
              f"{'typed == buffer' if same else 'DIFFERS'}")
        if not same:
            wrong.append((case.name, "\n".join(result["lines"])))
    assert not wrong, wrong
