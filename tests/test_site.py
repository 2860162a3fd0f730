"""The static site (tools/build_site.py) builds, works offline, has an index and navigation, and no broken links.

Static checks of the HTML; tests/test_browser.py::test_static_site_works_offline opens it in Chromium with every
request to another host blocked.
"""

import html
import re
from pathlib import Path
from urllib.parse import unquote

import nbformat
import pytest
from conftest import load_tool

ROOT = Path(__file__).resolve().parents[1]
LESSONS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


@pytest.fixture(scope="module")
def builder():
    return load_tool("build_site")


@pytest.fixture(scope="module")
def site(builder, tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    pages = builder.build_site(out)
    return out, pages


def _pages(out: Path) -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(out.glob("*.html"))}


def _rel_links(text: str, rel: str) -> list[str]:
    """The href of every <a rel=...> (nbconvert re-serializes pages, so attribute order is not fixed)."""
    tags = re.findall(r"<a\s[^>]*>", text)
    return [re.search(r'href="([^"]*)"', t).group(1) for t in tags if f'rel="{rel}"' in t]


def test_static_site_renders_every_lesson(site):
    out, pages = site
    assert [p.stem for p in pages] == [p.stem for p in LESSONS]
    index = (out / "index.html").read_text()
    for page in pages:
        text = page.read_text()
        assert f'href="{page.name}"' in index
        assert "Traceback" not in text
        assert text.count("<img") >= 1 or page.stem.startswith("00"), page.name   # the plots are in the page


def test_nothing_is_loaded_from_another_host(site):
    """No script, style sheet, font, image or frame from a CDN: MathJax is served from the site itself."""
    out, _ = site
    for name, text in {**_pages(out), "site.css": (out / "site.css").read_text()}.items():
        remote = re.findall(r'<(?:script|link|img|iframe|source|audio|video|embed)\b[^>]*?\s(?:src|href)='
                            r'["\']?(?:https?:)?//[^"\'\s>]+', text, flags=re.I)
        remote += re.findall(r'url\(\s*["\']?(?:https?:)?//[^)]*\)|@import\s+["\']?(?:https?:)?//[^;]*'
                             r'|import\(\s*["\'](?:https?:)?//[^)]*\)', text, flags=re.I)
        remote += re.findall(r"cdnjs|unpkg\.com|jsdelivr|googleapis|require\.min\.js|embed-amd", text)
        assert not remote, f"{name} loads from another host: {remote[:3]}"
        if name.endswith(".html"):
            assert 'src="mathjax/MathJax.js?config=' in text, f"{name} does not load the site's MathJax"
    config = out / "mathjax" / "config" / "TeX-AMS-MML_HTMLorMML-full.js"
    assert (out / "mathjax" / "MathJax.js").is_file() and config.is_file()
    assert any((out / "mathjax" / "fonts" / "HTML-CSS" / "STIX-Web" / "woff").rglob("*.woff")), "no web fonts"


def test_widgets_are_replaced_by_their_saved_snapshots(site, builder):
    """Every widget view becomes a note with its settings plus the text and plots its Output widget saved;
    progress bars of slow cells are dropped."""
    out, pages = site
    for lesson, page in zip(LESSONS, pages):
        nb = nbformat.read(lesson, as_version=4)
        text = page.read_text(encoding="utf-8")
        assert "application/vnd.jupyter.widget" not in text, f"{page.name} still embeds widget JSON"
        state = nb.metadata.get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {})
        views = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if WIDGET_VIEW in o.get("data", {})
                 and not builder.is_progress_bar(o["data"][WIDGET_VIEW]["model_id"], state.get("state", {}))]
        saved_images = sum("image/png" in o.get("data", {}) for m in state.get("state", {}).values()
                           for o in m.get("state", {}).get("outputs", []))
        cell_images = sum("image/png" in o.get("data", {}) for c in nb.cells if c.cell_type == "code"
                          for o in c.outputs)
        assert text.count('class="ntk-widget-note"') == len(views), page.name
        assert text.count("<img") >= cell_images + saved_images, page.name
        assert "kernel blocks:" not in text and "it/s]" not in text, f"{page.name} shows a progress bar"
        if views:
            assert "Static snapshot" in text and "make dashboard LESSON=" + lesson.stem in text
            assert saved_images >= 1, f"{lesson.name}: its widget saved no plot (re-run it with build_notebooks.py)"


def test_index_table_and_navigation(site, builder):
    out, pages = site
    index = (out / "index.html").read_text(encoding="utf-8")
    rows = re.findall(r"<tr><td class=\"ntk-num\">(\d\d)</td><td><a href=\"([^\"]+)\">(.*?)</a></td>"
                      r"<td class=\"ntk-section\">(.*?)</td><td>(.*?)</td></tr>", index, flags=re.S)
    assert [r[1] for r in rows] == [p.name for p in pages]
    for (number, _, title, section, description), lesson in zip(rows, LESSONS):
        nb = nbformat.read(lesson, as_version=4)
        assert number == lesson.stem[:2]
        assert html.unescape(title) in builder.lesson_title(nb)
        assert section.strip(), f"lesson {number}: no book section (lesson 00's map has no row for it?)"
        assert description.strip() or number == "00", f"lesson {number}: no description in lesson 00's map"
    assert 'href="errata.html"' in index
    for i, page in enumerate(pages):
        text = page.read_text(encoding="utf-8")
        assert text.count('href="index.html"') >= 2, f"{page.name}: no link back to the index"
        prev, nxt = _rel_links(text, "prev"), _rel_links(text, "next")
        assert prev == ([pages[i - 1].name] * 2 if i > 0 else []), page.name       # top and bottom of the page
        assert nxt == ([pages[i + 1].name] * 2 if i + 1 < len(pages) else []), page.name


def test_every_link_inside_the_site_resolves(site):
    """Lesson -> lesson and lesson -> errata links are rewritten; every local link has its file and anchor."""
    out, _ = site
    pages = _pages(out)
    ids = {name: set(re.findall(r'\sid="([^"]+)"', text)) for name, text in pages.items()}
    for name, text in pages.items():
        for href in re.findall(r'<a\s[^>]*?href="([^"]*)"', text):
            href = html.unescape(href)
            if re.match(r"^[a-z][a-z0-9+.-]*:", href, flags=re.I):
                continue                                                   # another web site: a link, not a load
            path, _, fragment = href.partition("#")
            target = path or name
            assert not target.endswith((".ipynb", ".md")), f"{name}: link not rewritten: {href}"
            assert target in pages, f"{name}: link to a missing page: {href}"
            assert not fragment or fragment in ids[target] or unquote(fragment) in ids[target], \
                f"{name}: link to a missing anchor: {href}"


def test_errata_page_has_every_entry(site):
    out, _ = site
    if not (ROOT / "ERRATA.md").exists():
        pytest.skip("no ERRATA.md")
    anchors = set(re.findall(r'<a id="([a-z0-9-]+)"></a>', (ROOT / "ERRATA.md").read_text(encoding="utf-8")))
    page = (out / "errata.html").read_text(encoding="utf-8")
    assert anchors and all(f'id="{a}"' in page for a in anchors)


def test_link_rewriting(builder):
    lessons = {"02_mlp_recursion", "03_cnn"}
    target = builder.site_target
    assert target("../ERRATA.md#a7", lessons, True) == "errata.html#a7"
    assert target("03_cnn.ipynb#4.2.1-Pixel-pairs", lessons, True) == "03_cnn.html#4.2.1-Pixel-pairs"
    assert target("notebooks/02_mlp_recursion.ipynb", lessons, True) == "02_mlp_recursion.html"
    assert target("#a-heading", lessons, True) == "#a-heading"
    assert target("https://arxiv.org/abs/1806.07572", lessons, True) == "https://arxiv.org/abs/1806.07572"
    assert target("../exercises/chapter4/ex4_3_resnet_depth.ipynb", lessons, True) is None
    assert target("../README.md", lessons, True) is None
    page = builder.rewrite_links('<a href="../exercises/chapter4/ex4_1.ipynb">exercise 4.1</a>', lessons, True,
                                 "notebooks")
    assert page.startswith('<span class="ntk-offsite"') and "exercises/chapter4/ex4_1.ipynb" in page
