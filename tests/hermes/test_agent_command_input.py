"""`hermes workflow agent` on input and answers it cannot take as they are (issue 45, B11,
B12): a `timeout_minutes` of 10^400 is a usage error naming the range (was: an
OverflowError traceback); a model answering with a lone surrogate gets it replaced by
U+FFFD, as a run's values are (was: a UnicodeEncodeError traceback)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from hwf_lsp.hermes.agent_command import run_agent_command


class AnsweringLlm:
    """Stands in for ctx.llm: answers `text` to every call."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.calls = 0

    def complete(self, messages: list[dict[str, Any]], **kwargs: Any) -> Any:
        self.calls += 1
        return type("Result", (), {"text": self.text})()


def call(home: Path, request: dict[str, Any] | str, answer: str = "fine") -> tuple[int, str, str]:
    llm, out, err = AnsweringLlm(answer), io.StringIO(), io.StringIO()
    text = request if isinstance(request, str) else json.dumps(request)
    code = run_agent_command(home, llm, io.StringIO(text), out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("minutes", ["1" + "0" * 400, "4321", "1e400"])
def test_a_huge_timeout_is_a_usage_error_naming_the_range(hermes_home: Path, minutes: str) -> None:
    code, out, err = call(hermes_home, '{"prompt": "p", "timeout_minutes": ' + minutes + "}")
    assert (code, out) == (2, ""), err
    assert "timeout_minutes" in err and "4320" in err and "Traceback" not in err


@pytest.mark.parametrize(("answer", "stored"), [
    ("half an emoji \ud83d", {"output": "half an emoji \ufffd"}),
    ('{"structured": {"a": "\\ud83d"}}', {"structured": {"a": "\ufffd"}}),
])
def test_a_lone_surrogate_in_the_answer_is_replaced(hermes_home: Path, answer: str,
                                                   stored: dict[str, Any]) -> None:
    code, out, err = call(hermes_home, {"prompt": "p"}, answer)
    assert code == 0, err
    out.encode("utf-8")  # valid UTF-8
    assert json.loads(out) == stored
