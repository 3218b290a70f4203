#!/usr/bin/env python3
"""`make demo`: check the examples, then run the review flow end to end with the real `hwf`.

Every step runs the `hwf` console script installed in the venv next to this Python,
as a user would. The demo checks each exit code and each key result, and exits
non-zero if anything is unexpected. Runs go to a throwaway HERMES_HOME,
./.demo-home, which is wiped at the start so the demo never touches ~/.hermes.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
HOME = Path(os.environ.get("HWF_DEMO_HOME") or ROOT / ".demo-home").resolve()
"""The throwaway HERMES_HOME; HWF_DEMO_HOME moves it (the test of this demo uses a tmp dir)."""
CHANNEL_LOG = HOME / "channel.log"
BIN = Path(sys.executable).parent
HWF = BIN / "hwf"
PYTHON = os.path.relpath(sys.executable, ROOT) if sys.executable.startswith(str(ROOT)) \
    else sys.executable
AGENT = f"{PYTHON} examples/agents/echo_agent.py"
CHANNEL = f"{PYTHON} examples/channels/print_channel.py"
GOOD = ["examples/hello-world.hwf.json", "examples/review-flow.hwf.json",
        "examples/workflow-designs/nightly-digest.json"]
BROKEN = "examples/broken.hwf.json"

timings: list[tuple[str, float]] = []


class DemoFailure(Exception):
    pass


def shown_path(path: Path) -> str:
    """Relative to the repository when inside it, else absolute."""
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def section(title: str) -> None:
    print(f"\n=== {title} " + "=" * max(3, 74 - len(title)), flush=True)


def hwf(*args: str, expect: int, show: bool = True) -> subprocess.CompletedProcess[str]:
    """Run `hwf args...` as a user would; fail the demo on an unexpected exit code."""
    shown = "hwf " + " ".join(shlex.quote(a) for a in args)
    print(f"$ {shown}", flush=True)
    env = {**os.environ, "HERMES_HOME": str(HOME), "HWF_CHANNEL_LOG": str(CHANNEL_LOG)}
    env.pop("HWF_AGENT_COMMAND", None)
    env.pop("HWF_DELIVERY_COMMAND", None)
    started = time.perf_counter()
    done = subprocess.run([str(HWF), *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120, check=False)
    timings.append((shown, time.perf_counter() - started))
    if show:
        for stream in (done.stdout, done.stderr):
            if stream.strip():
                print(stream.rstrip(), flush=True)
    print(f"[exit {done.returncode}]", flush=True)
    if done.returncode != expect:
        if not show:
            print(done.stdout + done.stderr)
        raise DemoFailure(f"`{shown}` exited {done.returncode}, expected {expect}")
    return done


def expect(condition: bool, what: str) -> None:
    if not condition:
        raise DemoFailure(what)
    print(f"  ok: {what}", flush=True)


def check_examples() -> None:
    section("1. Check the examples (hwf check)")
    hwf("check", *GOOD, expect=0)
    print("\nThe broken example breaks every rule (text format: 1-based line:column):")
    hwf("check", BROKEN, expect=1)
    print("\nThe same in the JSON format (0-based lines, UTF-16 characters: the ranges the "
          "editor underlines):")
    done = hwf("check", "--format", "json", BROKEN, expect=1, show=False)
    report = json.loads(done.stdout)
    defects = report[0]["defects"]
    print(f"first 2 of {len(defects)} entries:")
    print(json.dumps(defects[:2], indent=2))
    wanted = json.loads((EXAMPLES / "broken.expected.json").read_text(encoding="utf-8"))
    got = sorted((str(d["node"]), str(d["field"]), d["rule"]) for d in defects)
    expect(got == sorted((str(w["node"]), str(w["field"]), w["rule"]) for w in wanted),
           f"the {len(defects)} findings match examples/broken.expected.json")


def run_review_flow() -> str:
    section("2. Run the review flow with the example agent (hwf run)")
    print(f"HERMES_HOME={shown_path(HOME)} (a fresh, throwaway home: runs are written there)")
    done = hwf("run", "examples/review-flow.hwf.json", "--agent-command", AGENT,
               "--delivery-command", CHANNEL, expect=3)
    run_id = done.stdout.split()[1]
    expect(len(run_id) == 12 and all(c in "0123456789abcdef" for c in run_id),
           f"run {run_id} parked at the approval (exit 3 = waiting)")
    return run_id


def answer_approval(run_id: str) -> None:
    section("3. Answer the approval from the command line (hwf answer, a new process)")
    hwf("answer", run_id, "approve", "--agent-command", AGENT, "--delivery-command", CHANNEL,
        expect=0)
    hwf("runs", expect=0)
    lines = CHANNEL_LOG.read_text(encoding="utf-8").splitlines() if CHANNEL_LOG.exists() else []
    expect(len(lines) == 1, "the channel command received exactly one message")
    message = json.loads(lines[0])
    print(f"  channel message: target={message['target']} key={message['key']}")
    expect(message["target"] == "slack:#reviews" and message["key"] == f"{run_id}:publish",
           "it went to slack:#reviews with the idempotency key <run_id>:publish")


def show_state(run_id: str) -> None:
    section("4. Where the run state lives")
    path = HOME / "workflow-runs" / f"{run_id}.json"
    print(f"run file: {shown_path(path)}  (under $HERMES_HOME/workflow-runs/)")
    state = json.loads(path.read_text(encoding="utf-8"))
    for key in ("run_id", "name", "status", "cursor", "skipped", "answers"):
        print(f"  {key}: {json.dumps(state[key])}")
    print(f"  outputs.review: {json.dumps(state['outputs']['review'])}")
    receipt = state["deliveries"][0]
    print(f"  deliveries[0]: {json.dumps({k: receipt[k] for k in ('key', 'target', 'ok')})}")
    expect(state["status"] == "completed" and state["outputs"]["review"]["score"] == 8
           and receipt["ok"] is True, "the run completed, review scored 8, delivery ok")
    print("\nThe canvas, chat, cron and the editor read this same directory; "
          f"`hwf show {run_id}` prints it for people.")


def main() -> int:
    started = time.perf_counter()
    if not HWF.exists():
        print(f"demo: {HWF} is missing; run `make demo` (it installs the venv)", file=sys.stderr)
        return 2
    shutil.rmtree(HOME, ignore_errors=True)
    HOME.mkdir(parents=True)
    try:
        check_examples()
        run_id = run_review_flow()
        answer_approval(run_id)
        show_state(run_id)
    except (DemoFailure, subprocess.TimeoutExpired, KeyError, ValueError, OSError) as exc:
        print(f"\nDEMO FAILED: {exc}", file=sys.stderr)
        return 1
    section("Timings")
    for shown, seconds in timings:
        print(f"  {seconds * 1000:7.0f} ms  {shown if len(shown) < 70 else shown[:67] + '...'}")
    print(f"  {(time.perf_counter() - started) * 1000:7.0f} ms  total")
    print("\nDemo OK.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
