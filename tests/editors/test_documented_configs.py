"""What the README says about editors, checked where a check is cheap.

The Helix and Zed configs are documented, not run (no such editor here): this checks
they parse, start the server the safe way, and cover design test files (`*.hwf-test.json`). Every editor config in the README names
the console script, never a bare `python -m hwf_lsp` (docs/reliability.md, "An untrusted
repository"). And the list of what `make test` installs names the Makefile's packages.
"""

from __future__ import annotations

import json
import re
import tomllib
from fnmatch import fnmatch

import pytest
from editor_support import README, REPO, snippet

from hwf_lsp.server.design_test_documents import is_test_path

CONFIGS = [("tested", "neovim-0.11"), ("tested", "neovim-0.11-completion"),
           ("tested", "neovim-0.7"), ("tested", "emacs-eglot"), ("tested", "emacs-eglot-yasnippet"),
           ("tested", "emacs-dap-mode"), ("documented", "helix"), ("documented", "zed"),
           ("documented", "neovim-nvim-dap")]


@pytest.mark.parametrize(("kind", "name"), CONFIGS, ids=[name for _, name in CONFIGS])
def test_no_config_starts_the_server_from_the_project_directory(kind: str, name: str) -> None:
    text = snippet(kind, name)
    assert not re.search(r"python3?\W+-m\W+hwf_lsp", text), f"{name} runs `python -m hwf_lsp`"


def test_the_helix_config_parses_and_adds_hwf_lsp_to_json() -> None:
    config = tomllib.loads(snippet("documented", "helix"))
    assert config["language-server"]["hwf-lsp"]["command"] == "hwf-lsp"
    (language,) = config["language"]
    assert language["name"] == "json" and "hwf-lsp" in language["language-servers"]


def test_the_helix_config_starts_hwf_lsp_for_design_test_files() -> None:
    """Helix picks a language by file-types; the config keeps the built-in JSON language's
    (the `json` extension, so `*.hwf-test.json` too), and the server checks test files."""
    (language,) = tomllib.loads(snippet("documented", "helix"))["language"]
    assert "file-types" not in language, "the config narrows which files are JSON"
    assert is_test_path("/project/review-flow.hwf-test.json")
    assert not is_test_path("/project/other.json")


def zed_schema_for(config: dict, name: str) -> list[str]:
    """The schema files (names under schema/) whose `fileMatch` matches a file `name`."""
    schemas = config["lsp"]["json-language-server"]["settings"]["json"]["schemas"]
    return [schema["url"].rsplit("/schema/", 1)[1] for schema in schemas
            if any(fnmatch(name, glob.removeprefix("**/")) for glob in schema["fileMatch"])]


def test_the_zed_config_parses_and_maps_designs_and_design_tests_to_their_schemas() -> None:
    config = json.loads(snippet("documented", "zed"))
    design_schema, test_schema = "hermes-workflow-design.schema.json", "hwf-test.schema.json"
    assert zed_schema_for(config, "review-flow.hwf.json") == [design_schema]
    assert zed_schema_for(config, "workflow-designs/review-flow.json") == [design_schema]
    assert zed_schema_for(config, "review-flow.hwf-test.json") == [test_schema]
    assert zed_schema_for(config, "other.json") == []
    assert (REPO / "schema" / design_schema).is_file() and (REPO / "schema" / test_schema).is_file()


def test_the_readme_names_every_debian_package_make_test_installs() -> None:
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    packages = re.search(r"^DEB_PACKAGES := (.*)$", makefile, re.MULTILINE).group(1).split()
    readme = README.read_text(encoding="utf-8")
    assert packages and all(f"`{p}`" in readme for p in packages), packages
