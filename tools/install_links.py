"""Where the course is hosted, written into every place that links to it: the lessons' "Open in Colab" and Binder
links, the lessons' install cell (the first code cell, for Colab) and the README's links.

    python tools/install_links.py               # (re)write them all from pyproject.toml (changes nothing if current)
    python tools/install_links.py owner/name    # a fork on GitHub: set pyproject.toml's Repository URL, then rewrite
    python tools/install_links.py --check       # exit 1 naming every file that is out of date (nothing written)

The one source is ``[project.urls] Repository`` in pyproject.toml. A lesson's ``.py`` source and its executed
``.ipynb`` are both updated (only the links line and the install cell's source change, so no lesson needs to run
again); a lesson without the install cell gets it after its first markdown cell (then run ``make notebooks``).
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = ROOT / "pyproject.toml"
LESSONS = sorted((ROOT / "notebooks").glob("[0-9][0-9]*_*.py")) + sorted((ROOT / "notebooks" / "zh").glob("[0-9][0-9]*_*.py"))
README = ROOT / "README.md"

#: How the tools and tests recognise the install cell, whatever its wording: a code cell containing this.
INSTALL_CHECK = 'importlib.util.find_spec("ntk_helpers") is None'
#: The install cell's first line (what the reader sees first).
INSTALL_MARKER = "# On Colab (or any Jupyter without this course's package) this installs it (once); here it does nothing."
_GITHUB = re.compile(r"https://github\.com/([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+?)(?:\.git)?/?$")
_LINKS_LINE = re.compile(r"^\[(?:Open in Colab|在 Colab 中打开)\]\(.*$", re.M)           # in markdown
#: The links line with its line break, as tools/zh_catalog.py leaves it out of the translated text.
LINKS_LINE = re.compile(_LINKS_LINE.pattern + r"\n?", re.M)
_LINKS_LINE_SOURCE = re.compile(r"^# \[(?:Open in Colab|在 Colab 中打开)\]\(.*$", re.M)  # in a .py source
_HOSTED = re.compile(r"(https://colab\.research\.google\.com/github/|https://mybinder\.org/v2/gh/)"
                     r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+/")


def project() -> dict:
    return tomllib.loads(PYPROJECT.read_text())["project"]


def repository() -> str:
    """"owner/name" from pyproject.toml's ``[project.urls] Repository`` (a GitHub URL)."""
    url = project()["urls"]["Repository"]
    match = _GITHUB.match(url)
    if not match:
        raise ValueError(f"pyproject.toml [project.urls] Repository must be https://github.com/OWNER/NAME, got {url!r}")
    return match.group(1)


def issues_url() -> str:
    return f"https://github.com/{repository()}/issues"


def font_requirement() -> str:
    """The pinned CJK font package of the lab extra (what a Chinese lesson on Colab needs besides the package)."""
    return next(r for r in project()["optional-dependencies"]["lab"] if r.startswith("mplfonts")).split("#")[0].strip()


def install_requirement(repo: str) -> str:
    """What the install cell hands to pip: the course's package, built from the repository's default branch."""
    return f"{project()['name']} @ git+https://github.com/{repo}"


def install_cell(repo: str) -> str:
    """The first code cell of every lesson, identical in both editions. ``find_spec`` looks without importing; pip
    then installs the package and its pinned dependencies (torch 2.13.0 among them); ``invalidate_caches`` lets
    the next cell import what pip has just written."""
    return "\n".join([
        INSTALL_MARKER,
        "import importlib, importlib.util, subprocess, sys",
        f"if {INSTALL_CHECK}:",
        f'    package = "{install_requirement(repo)}"',
        '    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", package], check=True)',
        "    importlib.invalidate_caches()",
    ])


def colab_url(repo: str, notebook: str) -> str:
    return f"https://colab.research.google.com/github/{repo}/blob/main/{notebook}"


def binder_url(repo: str, notebook: str) -> str:
    return f"https://mybinder.org/v2/gh/{repo}/HEAD?labpath={notebook.replace('/', '%2F')}"


def links_line(repo: str, lesson: Path) -> str:
    """The markdown line under a lesson's title."""
    notebook = "/".join(["notebooks", *(["zh"] if lesson.parent.name == "zh" else []), lesson.stem + ".ipynb"])
    colab, binder = colab_url(repo, notebook), binder_url(repo, notebook)
    if lesson.parent.name == "zh":
        return (f"[在 Colab 中打开]({colab}) · [Binder]({binder})（在 Colab 上，要让图和滑块显示中文，"
                f"请先运行 `%pip install {font_requirement()}` 和 `%env NTK_LESSON_LANGUAGE=zh`）")
    return f"[Open in Colab]({colab}) · [Binder]({binder})"


def _cells(text: str) -> list[str]:
    """A percent-format source split into cells, each starting with its "# %%" line."""
    return re.split(r"(?m)^(?=# %%)", text)[1:]


def updated_source(text: str, repo: str, lesson: Path) -> str:
    """A lesson's .py source with the current links line (second line of the first cell) and install cell."""
    cells = _cells(text)
    first = cells[0]
    line = "# " + links_line(repo, lesson)
    if _LINKS_LINE_SOURCE.search(first):
        first = _LINKS_LINE_SOURCE.sub(lambda _: line, first, count=1)
    else:
        head, title, rest = first.split("\n", 2)
        first = f"{head}\n{title}\n{line}\n{rest}"
    cell = f"# %%\n{install_cell(repo)}\n\n"
    code = [i for i, c in enumerate(cells) if not c.startswith("# %% [markdown]")]
    if code and INSTALL_CHECK in cells[code[0]]:
        cells[code[0]] = cell
        cells[0] = first
    else:
        cells[0:1] = [first, cell]
    return "".join(cells)


def updated_notebook(path: Path, repo: str, lesson: Path):
    """The executed notebook with the current links line and install cell, or None if it has no install cell yet."""
    nb = nbformat.read(path, as_version=4)
    install = [c for c in nb.cells if c.cell_type == "code" and INSTALL_CHECK in c.source]
    if not install:
        return None
    install[0].source = install_cell(repo)
    nb.cells[0].source = _LINKS_LINE.sub(lambda _: links_line(repo, lesson), nb.cells[0].source, count=1)
    return nb


def updated_readme(text: str, repo: str) -> str:
    return _HOSTED.sub(lambda m: f"{m.group(1)}{repo}/", text)


def out_of_date(repo: str) -> dict[Path, str]:
    """{file: its current text} for every file whose links or install cell differ from ``repo``'s."""
    changes: dict[Path, str] = {}
    for lesson in LESSONS:
        text = lesson.read_text(encoding="utf-8")
        fresh = updated_source(text, repo, lesson)
        if fresh != text:
            changes[lesson] = fresh
        ipynb = lesson.with_suffix(".ipynb")
        nb = updated_notebook(ipynb, repo, lesson) if ipynb.exists() else None
        if nb is not None:
            fresh = nbformat.writes(nb)
            fresh += "" if fresh.endswith("\n") else "\n"             # as nbformat.write ends the file
            if fresh != ipynb.read_text(encoding="utf-8"):
                changes[ipynb] = fresh
    text = README.read_text(encoding="utf-8")
    if updated_readme(text, repo) != text:
        changes[README] = updated_readme(text, repo)
    return changes


def main(argv: list[str]) -> int:
    if argv and argv[0] == "--check":
        stale = out_of_date(repository())
        for path in stale:
            print(f"out of date: {path.relative_to(ROOT)} (run `make links`)")
        return 1 if stale else 0
    if argv:
        if not re.fullmatch(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+", argv[0]):
            print(f"REPOSITORY must be owner/name on GitHub, got {argv[0]!r}", file=sys.stderr)
            return 2
        text = PYPROJECT.read_text()
        text = re.sub(r'(?m)^Repository = "[^"]*"', f'Repository = "https://github.com/{argv[0]}"', text, count=1)
        PYPROJECT.write_text(text)
    changes = out_of_date(repository())
    for path, text in changes.items():
        path.write_text(text, encoding="utf-8")
        print(f"updated {path.relative_to(ROOT)}")
    if not changes:
        print(f"every link already points at github.com/{repository()}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
