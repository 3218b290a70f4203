"""What the README says about editors, checked where a check is cheap.

The Helix and Zed configs are documented, not run (no such editor here): this checks
they parse and start the server the safe way. Every editor config in the README names
the console script, never a bare `python -m hwf_lsp` (docs/reliability.md, "An untrusted
repository"). And the list of what `make test` installs names the Makefile's packages.
"""

from __future__ import annotations

import json
import re
import tomllib

import pytest
from editor_support import README, REPO, snippet

CONFIGS = [("tested", "neovim-0.11"), ("tested", "neovim-0.11-completion"),
           ("tested", "neovim-0.7"), ("tested", "emacs-eglot"), ("tested", "emacs-eglot-yasnippet"),
           ("documented", "helix"), ("documented", "zed")]


@pytest.mark.parametrize(("kind", "name"), CONFIGS, ids=[name for _, name in CONFIGS])
def test_no_config_starts_the_server_from_the_project_directory(kind: str, name: str) -> None:
    text = snippet(kind, name)
    assert not re.search(r"python3?\W+-m\W+hwf_lsp", text), f"{name} runs `python -m hwf_lsp`"


def test_the_helix_config_parses_and_adds_hwf_lsp_to_json() -> None:
    config = tomllib.loads(snippet("documented", "helix"))
    assert config["language-server"]["hwf-lsp"]["command"] == "hwf-lsp"
    (language,) = config["language"]
    assert language["name"] == "json" and "hwf-lsp" in language["language-servers"]


def test_the_zed_config_parses_and_maps_designs_to_the_schema() -> None:
    config = json.loads(snippet("documented", "zed"))
    (schema,) = config["lsp"]["json-language-server"]["settings"]["json"]["schemas"]
    assert schema["url"].endswith("/schema/hermes-workflow-design.schema.json")
    assert set(schema["fileMatch"]) == {"*.hwf.json", "**/workflow-designs/*.json"}


def test_the_readme_names_every_debian_package_make_test_installs() -> None:
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    packages = re.search(r"^DEB_PACKAGES := (.*)$", makefile, re.MULTILINE).group(1).split()
    readme = README.read_text(encoding="utf-8")
    assert packages and all(f"`{p}`" in readme for p in packages), packages
