"""The benchmark keeps working: `python -m bench --smoke` completes and writes sane results.

No timing is asserted (CI machines are noisy); only that every part ran and produced
well-formed output that the report and the lead can rely on.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench.gen import SIZES, design_of_size  # noqa: E402

LATENCY_KEYS = {"server", "doc", "bytes", "nodes", "op", "n", "p50_ms", "p90_ms", "p99_ms",
                "failures"}


@pytest.fixture(scope="module")
def smoke(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any], str]:
    out = tmp_path_factory.mktemp("bench-smoke")
    done = subprocess.run([sys.executable, "-m", "bench", "--smoke", "--out", str(out)],
                          cwd=REPO, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    return out, json.loads((out / "results.json").read_text(encoding="utf-8")), done.stdout


def available(results: dict[str, Any]) -> list[str]:
    return [name for name, server in results["servers"].items() if server["available"]]


PUSH_PEER_OPS = ("open", "change", "change-id")
"""didOpen, and didChange with a keystroke in a prompt and in a node id (range edits)."""
LATENCY_OPS = (*PUSH_PEER_OPS, "change-break", "change-full", "change-id-full",
               "change-break-full")
"""...and the JSON-breaking keystroke, and all three sent as the whole text."""


def check_latency_rows(results: dict[str, Any]) -> None:
    for server in available(results):
        for op in PUSH_PEER_OPS if server == "peer" else LATENCY_OPS:
            rows = [r for r in results["latency"] if r["server"] == server and r["op"] == op]
            assert len(rows) == len(results["documents"]), (server, op)
            for row in rows:
                assert LATENCY_KEYS <= row.keys()
                assert row["n"] > 0 and row["failures"] == 0, row
                assert row["p50_ms"] <= row["p90_ms"] <= row["p99_ms"], row


def check_diagnostics_found(results: dict[str, Any]) -> None:
    """The generated designs carry defects: hwf-lsp and the schema peer must report some."""
    for server in ("hwf-lsp", "peer", "peer-pull"):
        if server in available(results):
            for op in ("change", "change-id"):
                counts = [r["diagnostics"] for r in results["latency"]
                          if r["server"] == server and r["op"] == op]
                assert counts and all(c and c > 0 for c in counts), (server, op, counts)
    floor = [r["diagnostics"] for r in results["latency"]
             if r["server"] == "floor" and r["op"] in ("open", *LATENCY_OPS)]
    assert floor and set(floor) == {0}


def check_id_keystroke_is_structural(results: dict[str, Any]) -> None:
    """Editing the middle node's id breaks the references to it: on designs within the 50-node
    rule, hwf-lsp reports more than after a prompt keystroke, and names the node.  The
    breaking keystroke adds syntax errors; sent as whole texts, each edit reports what
    it does as a range edit."""
    rows = {(r["doc"], r["op"]): r for r in results["latency"] if r["server"] == "hwf-lsp"}
    for doc in results["documents"]:
        if doc["nodes"] <= 50:
            prompt, id_edit = rows[doc["name"], "change"], rows[doc["name"], "change-id"]
            assert id_edit["diagnostics"] > prompt["diagnostics"], (prompt, id_edit)
            assert rows[doc["name"], "change-break"]["diagnostics"] > prompt["diagnostics"]
        for op in ("change", "change-id", "change-break"):
            assert rows[doc["name"], op]["diagnostics"] == \
                rows[doc["name"], f"{op}-full"]["diagnostics"], op
    sample = rows["size-10k", "change-id"]["sample"]
    edited_ids = design_of_size("10k", SIZES["10k"]).edited_ids
    assert any(node_id in m for m in sample for node_id in edited_ids), (edited_ids, sample)


def check_ratios_and_change_targets(results: dict[str, Any]) -> None:
    """Every didChange edit gets ratios and one target (3× floor), labelled by edit; smoke
    measures no 100 KB document, so none is decided."""
    for doc in results["documents"]:
        for op in LATENCY_OPS:
            [ratio] = [r for r in results["ratios"] if r["doc"] == doc["name"] and r["op"] == op]
            assert ratio["p50_vs_floor"] > 0, ratio
    for label, op in (("prompt keystroke", "change"), ("id keystroke", "change-id"),
                      ("JSON-breaking keystroke", "change-break"),
                      ("id keystroke, full text", "change-id-full")):
        verdicts = [t for t in results["targets"] if f"({label})" in t["target"]]
        assert len(verdicts) == 1 and verdicts[0]["op"] == op, verdicts
        assert "3× floor" in verdicts[0]["target"]
        assert all(t["holds"] is None for t in verdicts), verdicts
        assert all("10k:" in t["measured"] for t in verdicts)


def check_typing(results: dict[str, Any]) -> None:
    for server in available(results):
        typing = results["typing"][server]
        assert typing["keystrokes"] > 0 and typing["end_ms"] is not None, typing
        if results["servers"][server]["diagnostics"] == "push-versioned":
            assert {"strictly_increasing", "ends_on_final", "no_stale"} <= typing.keys()


def check_targets(results: dict[str, Any]) -> None:
    assert len(results["targets"]) >= 10
    for target in results["targets"]:
        assert {"target", "measured", "holds"} <= target.keys()
        assert target["holds"] in (True, False, None)


def check_cold_start_and_rss(results: dict[str, Any]) -> None:
    cold = results["cold_start"]
    assert cold["import pygls.lsp.server"]["median_ms"] > 0
    for server in available(results):
        if server != "peer-pull":
            assert cold[server]["ratio_to_import_pygls"] > 0
            assert cold[server]["first_diagnostics_ratio"] > cold[server]["ratio_to_import_pygls"]
            assert results["rss_after_largest"][server]["vmhwm_kb"] > 0


def check_engine(results: dict[str, Any]) -> None:
    engine = results["engine"]
    assert engine["validator"]["calls_per_s"] > 0
    assert engine["runner"]["overhead_per_step_ms"] is not None
    assert engine["resume"]["advance_parked_ms"] > 0


CHECKS = [check_latency_rows, check_diagnostics_found, check_id_keystroke_is_structural,
          check_ratios_and_change_targets, check_typing, check_targets,
          check_cold_start_and_rss, check_engine]


@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__)
def test_smoke_results(smoke: tuple[Path, dict[str, Any], str], check: Any) -> None:
    check(smoke[1])


def test_smoke_writes_report_and_plot(smoke: tuple[Path, dict[str, Any], str]) -> None:
    out, results, printed = smoke
    report = (out / "REPORT.md").read_text(encoding="utf-8")
    assert printed.strip() == report.strip()
    for heading in ("## Targets", "## didChange → publishDiagnostics, prompt keystroke",
                    "## didChange → publishDiagnostics, id keystroke",
                    "## didChange → publishDiagnostics, JSON-breaking keystroke, full text",
                    "## Cold start", "## Engine", "## Typing test"):
        assert heading in report
    assert set(results["meta"]["phase_seconds"]) >= {"latency_and_typing", "cold_start"}
    assert "hwf-lsp" in available(results), results["servers"]["hwf-lsp"]
    if importlib.util.find_spec("matplotlib") is None:  # `make test` installs .[test] only
        assert results["meta"]["plot"] is None
    else:
        assert results["meta"]["plot"] == "growth.png"
        assert (out / "growth.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
