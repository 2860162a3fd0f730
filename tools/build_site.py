"""Build a static HTML site of the executed lessons (for students without a running kernel).

    python tools/build_site.py [output folder, default build/site]

Each notebooks/NN_name.ipynb (already executed by tools/build_notebooks.py) becomes NN_name.html,
plus an index.html that lists them. Sliders are not interactive in static HTML; every plot and
number the lesson computed is there. Fails if a lesson contains an error output.
"""

from __future__ import annotations

import html
import sys
from pathlib import Path

import nbformat
from nbconvert import HTMLExporter

ROOT = Path(__file__).resolve().parents[1]


def lesson_title(nb) -> str:
    first = nb.cells[0].source.splitlines()[0]
    return first.lstrip("# ").strip()


def build_site(out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    exporter = HTMLExporter(template_name="lab")
    pages = []
    for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
        if errors:
            raise RuntimeError(f"{path.name} has {len(errors)} error output(s); rebuild it with tools/build_notebooks.py")
        body, _ = exporter.from_notebook_node(nb)
        page = out / f"{path.stem}.html"
        page.write_text(body, encoding="utf-8")
        pages.append((page, lesson_title(nb)))
    items = "\n".join(f'<li><a href="{p.name}">{html.escape(title)}</a></li>' for p, title in pages)
    (out / "index.html").write_text(
        "<!doctype html><html><head><meta charset='utf-8'><title>NTK lessons</title></head><body>"
        "<h1>Neural tangent kernel lessons</h1><p>Executed lessons of ntk-notebooks (static: sliders need "
        "JupyterLab or Voilà).</p><ol>" + items + "</ol></body></html>", encoding="utf-8")
    return [p for p, _ in pages]


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "build" / "site"
    for page in build_site(target):
        print(page)
    print(target / "index.html")
