"""ARCHITECTURE.md's code map names every module of hwf_lsp in its package's section, so
a module added, moved or renamed without its line in the map fails here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MAP = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
PACKAGES = sorted(path.name for path in (ROOT / "hwf_lsp").iterdir()
                  if (path / "__init__.py").is_file())


def section(package: str) -> str:
    """The code map's section of `package`: from its heading to the next one."""
    found = re.search(rf"^### `hwf_lsp/{package}/`.*?(?=^##)", MAP, re.M | re.S)
    return found.group() if found else ""


def unmapped(package: str, text: str) -> list[str]:
    modules = sorted((ROOT / "hwf_lsp" / package).rglob("*.py"))
    return [str(path.relative_to(ROOT)) for path in modules
            if path.name not in ("__init__.py", "__main__.py")
            and not re.search(rf"[`/ ]{re.escape(path.name)}`", text)]


@pytest.mark.parametrize("package", PACKAGES)
def test_the_code_map_names_every_module(package: str) -> None:
    text = section(package)
    assert text, f"ARCHITECTURE.md has no section for hwf_lsp/{package}/"
    assert unmapped(package, text) == []


def test_the_map_check_sees_a_missing_module() -> None:
    """Guard against a vacuous pass: a section without one module's name is caught."""
    text = section("rules").replace("`plan.py`", "`the plan`")
    assert unmapped("rules", text) == ["hwf_lsp/rules/plan.py"]
