"""`make test` on a loaded machine (issue 33): every phase runs and the summary names every
failure; the apt step waits for the dpkg lock and retries; the bundled-server tests run
after the .vsix is built. The real Makefile's `test` recipe is run against stand-in phases."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SCRIPTS = REPO / "scripts"


def stand_in_makefile(tmp_path: Path, failing: set[str]) -> Path:
    """The repo's `test` recipe and phase list, with phases that only record that they ran."""
    makefile = (REPO / "Makefile").read_text()
    phases = re.search(r"^TEST_PHASES := (.+)$", makefile, re.M).group(1).split()
    recipe = re.search(r"^test:\n((?:\t.*\n)+)", makefile, re.M).group(1)
    lines = [f"TEST_PHASES := {' '.join(phases)}", "test:", recipe.rstrip("\n")]
    for phase in phases:
        exit_code = 1 if phase in failing else 0
        lines += [f"{phase}:", f"\t@echo {phase} >> ran.txt; exit {exit_code}"]
    (tmp_path / "scripts").symlink_to(SCRIPTS)
    (tmp_path / "Makefile").write_text("\n".join(lines) + "\n")
    return tmp_path


def make_test(root: Path) -> subprocess.CompletedProcess[str]:
    """`make -s test` in `root`, not as part of the `make test` that may be running us."""
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    return subprocess.run(["make", "-s", "test"], cwd=root, env=env, capture_output=True,
                          text=True, timeout=60)


def test_every_phase_runs_and_the_summary_names_each_failure(tmp_path: Path) -> None:
    root = stand_in_makefile(tmp_path, failing={"test-python", "test-vscode"})
    done = make_test(root)
    assert done.returncode != 0, done.stdout
    ran = (root / "ran.txt").read_text().split()
    assert ran == ["test-python", "test-hermes", "test-vscode", "test-dashboard-tab"]
    assert "failed phases: test-python test-vscode" in done.stdout, done.stdout
    for phase in ran:
        assert re.search(rf"^{phase}\s+(ok|FAILED)\s+\d+s$", done.stdout, re.M), done.stdout


def test_make_test_exits_zero_when_every_phase_passes(tmp_path: Path) -> None:
    root = stand_in_makefile(tmp_path, failing=set())
    done = make_test(root)
    assert done.returncode == 0, done.stdout
    assert "all 4 phases passed" in done.stdout


def fake_apt(tmp_path: Path, lock_failures: int) -> dict[str, str]:
    """A PATH where dpkg says nothing is installed and apt-get fails `lock_failures` times
    as it does when another dpkg holds the lock, recording each call's arguments."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "dpkg").write_text("#!/bin/sh\nexit 1\n")
    (bin_dir / "apt-get").write_text(
        "#!/bin/sh\n"
        f'echo "$*" >> {tmp_path}/calls.txt\n'
        f'n=$(wc -l < {tmp_path}/calls.txt)\n'
        f'if [ "$n" -le {lock_failures} ]; then\n'
        '  echo "E: Could not get lock /var/lib/dpkg/lock-frontend" >&2; exit 100\n'
        "fi\n")
    for tool in ("dpkg", "apt-get"):
        (bin_dir / tool).chmod(0o755)
    return {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "HWF_APT_RETRY_PAUSE": "0"}


def test_apt_install_waits_for_the_dpkg_lock_and_retries(tmp_path: Path) -> None:
    env = fake_apt(tmp_path, lock_failures=2)
    done = subprocess.run([SCRIPTS / "apt-install", "neovim"], env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    calls = (tmp_path / "calls.txt").read_text().splitlines()
    assert all("DPkg::Lock::Timeout=300" in call for call in calls), calls
    assert calls[-1].endswith("install -y --no-install-recommends neovim"), calls
    assert len(calls) == 4  # two updates refused, then update and install


def test_apt_install_gives_up_after_its_attempts(tmp_path: Path) -> None:
    env = fake_apt(tmp_path, lock_failures=100)
    done = subprocess.run([SCRIPTS / "apt-install", "neovim"], env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 1
    assert len((tmp_path / "calls.txt").read_text().splitlines()) == 3
    assert "could not install: neovim" in done.stderr


def test_the_bundled_server_tests_run_after_the_vsix_is_built() -> None:
    """On a fresh clone bundled/libs exists only after `make vsix`: the vscode phase, which
    depends on it, runs those tests, and there a missing bundle fails instead of skipping."""
    makefile = (REPO / "Makefile").read_text()
    recipe = re.search(r"^test-vscode: (.*)\n((?:\t.*\n)+)", makefile, re.M)
    assert "vsix" in recipe.group(1).split()
    assert re.search(r"HWF_REQUIRE_BUNDLE=1 .*pytest .*test_untrusted_repo\.py -k bundled",
                     recipe.group(2))
