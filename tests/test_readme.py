"""The README's commands and its Python API example stay true, the docs pages' recipes run, and
every link between README.md and docs/*.md reaches a file and a heading that exist."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import ROOT
README = (ROOT / "README.md").read_text()
DOCS = sorted((ROOT / "docs").glob("*.md"))
PYTHON_DOC = (ROOT / "docs" / "python.md").read_text()


def _block_after(heading: str, lang: str) -> str:
    section = README.split(heading, 1)[1]
    return re.search(rf"```{lang}\n(.*?)```", section, re.S).group(1)


def test_python_api_example_runs_and_solves_cat15():
    pytest.importorskip("dwave.samplers")
    code = _block_after("## Python API", "python")
    assert len(code.strip().splitlines()) <= 10
    p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stderr
    rows = p.stdout.splitlines()
    assert len(rows) == 15 and rows[4] == ".#############."


def test_ci_runs_the_readmes_install_and_test_command():
    test_command = _block_after("Install everything and run the tests", "bash").strip()
    assert test_command in (ROOT / ".ci" / "run").read_text()
    assert "python -m formulations.solve puzzles/cat15.txt" in _block_after("## Try it", "bash")


# -- docs/python.md "From a notebook": every block runs and says what the page says ---------------

SECTION = PYTHON_DOC.split("## From a notebook", 1)[1].split("\n## ", 1)[0]
BLOCKS = {
    "Any sampler object": (("dwave.samplers",),
                           ["sampler:SimulatedAnnealingSampler solved 200 True",
                            "('sampler:SimulatedAnnealingSampler', 'solved'), ('sa', 'solved')"]),
    "The model as a CQM": (("dimod",), []),
    "The solving replayed": (("PIL",), ["solved 51 line updates, 2 guesses, 1 backtrack"]),
    "nonograms.org puzzles": ((), ["5 5 ['white', 'black', 'yellow', 'goldenrod']",
                                   "nonograms.org:4374: cannot download "]),
    "Results as data": (("pandas", "dwave.samplers"), ["tts99_low_s", "median_tts99_s"]),
}


@pytest.mark.parametrize("title", list(BLOCKS))
def test_notebook_section_blocks_run(title, tmp_path):
    import os
    import socket

    needs, expected = BLOCKS[title]
    for module in needs:
        pytest.importorskip(module)
    part = SECTION.split(f"### {title}\n", 1)[1].split("\n### ", 1)[0]
    code = re.search(r"```python\n(.*?)```", part, re.S).group(1).replace("/tmp/", f"{tmp_path}/")
    with socket.socket() as s:  # a port nothing listens on: the download fails as offline
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "NONOGRAM_FETCH_BASE": f"http://127.0.0.1:{port}"}
    p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                       timeout=300, env=env)
    assert p.returncode == 0, p.stderr
    for text in expected:
        assert text in p.stdout, p.stdout


# -- the README stays short and its links hold ------------------------------------------------------

def test_readme_is_a_ten_minute_read_that_links_its_details():
    lines = README.splitlines()
    assert 120 <= len(lines) <= 250, len(lines)
    prose = re.sub(r"```.*?```", "", README, flags=re.S)
    paragraphs = [item for b in prose.split("\n\n") if b.strip() and not b.lstrip().startswith("|")
                  for item in re.split(r"\n(?=- )", b.strip())]  # a list item is a paragraph
    assert max(len(b.strip().splitlines()) for b in paragraphs) <= 8  # no wall of text
    linked = set(re.findall(r"\]\((docs/[\w.-]+\.md)", README))
    assert {f"docs/{p.name}" for p in DOCS} <= linked  # every docs page is reachable from it


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _anchors(text: str) -> set[str]:
    text = re.sub(r"```.*?```", "", text, flags=re.S)  # a '#' in a code block is no heading
    return {_slug(m) for m in re.findall(r"^#+ (.+)$", text, re.M)}


@pytest.mark.parametrize("page", [ROOT / "README.md", *DOCS], ids=lambda p: p.name)
def test_links_reach_existing_files_and_headings(page):
    text = page.read_text()
    links = re.findall(r"\]\(([^)\s]+)\)", re.sub(r"```.*?```", "", text, flags=re.S))
    assert links or page.name == "layout.md"
    for link in links:
        if re.match(r"[a-z]+://", link):
            continue
        path, _, anchor = link.partition("#")
        target = (page.parent / path).resolve() if path else page
        assert target.exists(), f"{page.name}: {link} names no file"
        if anchor:
            assert anchor in _anchors(target.read_text()), f"{page.name}: {link} names no heading"


def test_the_console_script_is_the_command_line():
    import shutil

    assert 'nonogram-solve = "formulations.solve:main"' in (ROOT / "pyproject.toml").read_text()
    assert "nonogram-solve" in README
    script = shutil.which("nonogram-solve", path=str(Path(sys.executable).parent))
    if script is None:
        pytest.skip("the package is not installed with its scripts here")
    p = subprocess.run([script, "--list-backends"], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and p.stdout.startswith("cpsat"), p.stderr


def test_the_compare_example_writes_where_git_does_not_look():
    import shutil

    command = _block_after("## Comparing backends", "bash")
    paths = re.findall(r"--(?:out|plots) (\S+)", command)
    assert len(paths) == 2
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    for path in paths:
        p = subprocess.run(["git", "check-ignore", "-q", path + ("x" if path.endswith("/") else "")],
                           cwd=ROOT, capture_output=True, timeout=30)
        assert p.returncode == 0, f"{path} would land untracked in the checkout"
