"""The static site (tools/build_site.py) builds, works offline, has an index and navigation, and no broken links,
in both editions: English (notebooks/ -> the site's top folder) and Chinese (notebooks/zh/ -> zh/).

Static checks of the HTML; tests/test_browser.py::test_static_site_works_offline opens it in Chromium with every
request to another host blocked, and test_chinese_lesson_page_shows_no_tofu checks a Chinese page's glyphs.
"""

import html
import posixpath
import re
from pathlib import Path
from urllib.parse import unquote

import nbformat
import pytest
from conftest import load_tool

ROOT = Path(__file__).resolve().parents[1]
LESSONS = sorted((ROOT / "notebooks").glob("[0-9][0-9]*_*.ipynb"))
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


@pytest.fixture(scope="module")
def builder():
    return load_tool("build_site")


@pytest.fixture(scope="module")
def site(builder, tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    pages = builder.build_site(out)
    return out, pages


@pytest.fixture(params=["en", "zh"])
def edition(request, builder):
    """Each edition of the course: its lessons' folder, its pages' folder and <html lang>, its site words."""
    return next(e for e in builder.EDITIONS if e.lang.split("-")[0] == request.param)


def _lessons(edition) -> list[Path]:
    return sorted(edition.source.glob("[0-9][0-9]*_*.ipynb"))


def _edition_pages(site, edition) -> list[Path]:
    out, pages = site
    return [p for p in pages if p.parent == out / edition.folder]


def _pages(out: Path) -> dict[str, str]:
    """{site path: text} of every page, e.g. "zh/02_mlp_recursion.html"."""
    return {p.relative_to(out).as_posix(): p.read_text(encoding="utf-8") for p in sorted(out.rglob("*.html"))
            if "mathjax" not in p.relative_to(out).parts}


def _rel_links(text: str, rel: str) -> list[str]:
    """The href of every <a rel=...> (nbconvert re-serializes pages, so attribute order is not fixed)."""
    tags = re.findall(r"<a\s[^>]*>", text)
    return [re.search(r'href="([^"]*)"', t).group(1) for t in tags if f'rel="{rel}"' in t]


def _class_links(text: str, cls: str) -> list[str]:
    tags = re.findall(r"<a\s[^>]*>", text)
    return [re.search(r'href="([^"]*)"', t).group(1) for t in tags if f'class="{cls}"' in t]


def test_static_site_renders_every_lesson(site, edition):
    out, _ = site
    pages = _edition_pages(site, edition)
    assert [p.stem for p in pages] == [p.stem for p in _lessons(edition)]
    assert [p.stem for p in pages] == [p.stem for p in LESSONS], "every lesson has its page in every edition"
    index = (out / edition.folder / "index.html").read_text(encoding="utf-8")
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert f'href="{page.name}"' in index
        assert "Traceback" not in text
        assert text.count("<img") >= 1 or page.stem.startswith("00"), page.name   # the plots are in the page


def test_pages_declare_their_language(site, edition):
    """<html lang="en"> / <html lang="zh-CN">: screen readers and the browser's choice of CJK font follow it."""
    out, _ = site
    for page in [*_edition_pages(site, edition), out / edition.folder / "index.html"]:
        head = page.read_text(encoding="utf-8")[:200]
        assert re.search(rf'<html lang="{edition.lang}">', head), f"{page.relative_to(out)}: {head[:80]!r}"


def test_titles_come_from_each_lessons_first_heading(site, builder, edition):
    for lesson, page in zip(_lessons(edition), _edition_pages(site, edition)):
        title = builder.lesson_title(nbformat.read(lesson, as_version=4))
        found = re.search(r"<title>(.*?)</title>", page.read_text(encoding="utf-8")).group(1)
        assert html.unescape(found) == title, page.name
    if edition.folder:
        titles = [builder.lesson_title(nbformat.read(p, as_version=4)) for p in _lessons(edition)]
        assert all(re.search(r"[\u4e00-\u9fff]", t) for t in titles), f"not all Chinese headings: {titles}"


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
            root = "../" * name.count("/")                    # zh/NN.html loads ../mathjax/ and ../site.css
            assert f'src="{root}mathjax/MathJax.js?config=' in text, f"{name} does not load the site's MathJax"
            assert f'href="{root}site.css"' in text, f"{name} does not load the site's style sheet"
    config = out / "mathjax" / "config" / "TeX-AMS-MML_HTMLorMML-full.js"
    assert (out / "mathjax" / "MathJax.js").is_file() and config.is_file()
    assert any((out / "mathjax" / "fonts" / "HTML-CSS" / "STIX-Web" / "woff").rglob("*.woff")), "no web fonts"


def test_widgets_are_replaced_by_their_saved_snapshots(site, builder, edition):
    """Every widget view becomes a note with its settings plus the text and plots its Output widget saved;
    progress bars of slow cells are dropped."""
    snapshot = re.sub(r"<[^>]+>", "", edition.text["snapshot"].split("{")[0])      # "Static snapshot", "静态快照"
    for lesson, page in zip(_lessons(edition), _edition_pages(site, edition)):
        nb = nbformat.read(lesson, as_version=4)
        text = page.read_text(encoding="utf-8")
        assert "application/vnd.jupyter.widget" not in text, f"{page.name} still embeds widget JSON"
        state = nb.metadata.get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {})
        views = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if WIDGET_VIEW in o.get("data", {})
                 and not builder.is_progress_bar(o["data"][WIDGET_VIEW]["model_id"], state.get("state", {}))]
        saved_images = sum("image/png" in o.get("data", {}) for m in state.get("state", {}).values()
                           for o in m.get("state", {}).get("outputs", []))
        cell_images = sum("image/png" in o.get("data", {}) for c in nb.cells if c.cell_type == "code"
                          for o in c.outputs if WIDGET_VIEW not in o.get("data", {}))   # a view's PNG: replaced
        assert text.count('class="ntk-widget-note"') == len(views), page.name
        assert text.count("<img") >= cell_images + saved_images, page.name
        assert "kernel blocks:" not in text and "it/s]" not in text, f"{page.name} shows a progress bar"
        assert "FloatProgress" not in text and "IntProgress" not in text, f"{page.name} shows a progress bar"
        if views:
            assert snapshot in text and "make dashboard LESSON=" + edition.page(lesson.stem) in text, page.name
            assert saved_images >= 1, f"{lesson.name}: its widget saved no plot (re-run it with build_notebooks.py)"


def test_index_table_and_navigation(site, builder, edition):
    out, _ = site
    pages = _edition_pages(site, edition)
    index = (out / edition.folder / "index.html").read_text(encoding="utf-8")
    rows = re.findall(r"<tr><td class=\"ntk-num\">(\d\d[a-z]?)</td><td><a href=\"([^\"]+)\">(.*?)</a></td>"
                      r"<td class=\"ntk-section\">(.*?)</td><td>(.*?)</td></tr>", index, flags=re.S)
    assert [r[1] for r in rows] == [p.name for p in pages]
    for (number, _, title, section, description), lesson in zip(rows, _lessons(edition)):
        nb = nbformat.read(lesson, as_version=4)
        assert number == lesson.stem.split("_")[0], f"row {number} for lesson {lesson.stem}"
        assert html.unescape(title) in builder.lesson_title(nb)
        assert section.strip(), f"lesson {number}: no book section (lesson 00's map has no row for it?)"
        assert description.strip() or number == "00", f"lesson {number}: no description in lesson 00's map"
    errata = posixpath.relpath(edition.errata_page(), edition.folder or ".")
    assert f'href="{errata}"' in index
    for i, page in enumerate(pages):
        text = page.read_text(encoding="utf-8")
        assert text.count('href="index.html"') >= 2, f"{page.name}: no link back to the index"
        assert _class_links(text, "ntk-errata") == [errata] * 2, f"{page.name}: no link to the errata page"
        prev, nxt = _rel_links(text, "prev"), _rel_links(text, "next")
        assert prev == ([pages[i - 1].name] * 2 if i > 0 else []), page.name       # top and bottom of the page
        assert nxt == ([pages[i + 1].name] * 2 if i + 1 < len(pages) else []), page.name


def test_language_switch_on_every_page(site, builder):
    """A lesson links its twin in the other language (top and bottom), the index pages link each other, and a
    page without a twin (errata) links the other edition's index."""
    out, _ = site
    pages = _pages(out)
    editions = {e.folder: e for e in builder.EDITIONS}
    assert set(editions) == {"", "zh"} and "zh/index.html" in pages
    for name, text in pages.items():
        here = posixpath.dirname(name)
        other = editions["" if here else "zh"]
        tags = [t for t in re.findall(r"<a\s[^>]*>", text) if 'class="ntk-lang"' in t]
        assert tags, f"{name}: no language switch"
        assert all(f'hreflang="{other.lang}"' in t and f'lang="{other.lang}"' in t for t in tags), name
        targets = {posixpath.normpath(posixpath.join(here, re.search(r'href="([^"]*)"', t).group(1))) for t in tags}
        twin = other.page(posixpath.basename(name))
        assert targets == {twin if twin in pages else other.page("index.html")}, f"{name} -> {targets}"
        expected = 1 if name.endswith("index.html") else 2                           # lessons: top and bottom
        assert len(tags) == expected, f"{name}: {len(tags)} language links"
        label = re.findall(r'<a class="ntk-lang"[^>]*>([^<]*)</a>', text)
        assert label and set(label) == {other.name}, f"{name}: {label}"        # "中文" / "English"


def test_every_link_inside_the_site_resolves(site):
    """Lesson -> lesson, lesson -> errata and language-switch links are rewritten; every local link has its file
    and anchor. No lesson or ERRATA.md link is left as plain text (its relative path would be wrong)."""
    out, _ = site
    pages = _pages(out)
    ids = {name: set(re.findall(r'\sid="([^"]+)"', text)) for name, text in pages.items()}
    for name, text in pages.items():
        for href in re.findall(r'<a\s[^>]*?href="([^"]*)"', text):
            href = html.unescape(href)
            if re.match(r"^[a-z][a-z0-9+.-]*:", href, flags=re.I):
                continue                                                   # another web site: a link, not a load
            path, _, fragment = href.partition("#")
            target = posixpath.normpath(posixpath.join(posixpath.dirname(name), path)) if path else name
            assert not target.endswith((".ipynb", ".md")), f"{name}: link not rewritten: {href}"
            assert target in pages, f"{name}: link to a missing page: {href}"
            assert not fragment or fragment in ids[target] or unquote(fragment) in ids[target], \
                f"{name}: link to a missing anchor: {href}"
        offsite = re.findall(r'class="ntk-offsite" title="not in this site: the course file ([^"]*)"', text)
        wrong = [f for f in offsite if f.endswith("ERRATA.md") or re.search(r"\d\d[a-z]?_\w+\.(ipynb|py)$", f)]
        assert not wrong, f"{name}: links that should lead to a page of the site: {wrong}"


def test_chinese_lessons_link_the_errata_and_their_english_twins(site):
    out, _ = site
    text = (out / "zh" / "02_mlp_recursion.html").read_text(encoding="utf-8")
    assert re.search(r'href="errata\.html#[ab]\d+"', text), "no link to the Chinese errata (zh/errata.html#...)"
    assert 'href="../02_mlp_recursion.html"' in text
    assert re.search(r'href="03_cnn\.html"', text)


def test_errata_page_has_every_entry(site):
    out, _ = site
    if not (ROOT / "ERRATA.md").exists():
        pytest.skip("no ERRATA.md")
    anchors = set(re.findall(r'<a id="([a-z0-9-]+)"></a>', (ROOT / "ERRATA.md").read_text(encoding="utf-8")))
    for page in ("errata.html", "zh/errata.html"):               # English, and the Chinese one from its catalog
        text = (out / page).read_text(encoding="utf-8")
        missing = sorted(a for a in anchors if f'id="{a}"' not in text)
        assert anchors and not missing, f"{page}: entries missing: {missing[:5]}"


def test_link_rewriting(builder):
    two = [builder.Lesson(Path(f"{stem}.ipynb"), stem, "", "") for stem in ("02_mlp_recursion", "03_cnn")]
    targets = builder.site_targets({builder.ENGLISH: two, builder.CHINESE: two}, has_errata=True)
    assert targets["notebooks/zh/03_cnn"] == "zh/03_cnn.html" and targets["ERRATA.md"] == "errata.html"

    def target(href, base="notebooks", here=""):
        return builder.site_target(href, base, targets, here)

    assert target("../ERRATA.md#a7") == "errata.html#a7"
    assert target("03_cnn.ipynb#4.2.1-Pixel-pairs") == "03_cnn.html#4.2.1-Pixel-pairs"
    assert target("notebooks/02_mlp_recursion.ipynb", base="") == "02_mlp_recursion.html"        # from ERRATA.md
    assert target("notebooks/zh/02_mlp_recursion.ipynb", base="") == "zh/02_mlp_recursion.html"
    assert target("#a-heading") == "#a-heading"
    assert target("https://arxiv.org/abs/1806.07572") == "https://arxiv.org/abs/1806.07572"
    assert target("../exercises/chapter4/ex4_3_resnet_depth.ipynb") is None
    assert target("../README.md") is None
    assert target("../../ERRATA.md#a7") is None, "a path that leaves the course is a broken link, not the errata"
    # a Chinese lesson (notebooks/zh/) on its page zh/NN.html
    assert target("../../ERRATA.md#a7", "notebooks/zh", "zh") == "../errata.html#a7"
    assert target("../../ERRATA.zh.md#a7", "notebooks/zh", "zh") == "errata.html#a7"
    assert target("ERRATA.md#a7", "", "zh") == "../errata.html#a7"                  # the Chinese errata's link
    assert target("03_cnn.ipynb#4.2", "notebooks/zh", "zh") == "03_cnn.html#4.2"
    assert target("../02_mlp_recursion.ipynb", "notebooks/zh", "zh") == "../02_mlp_recursion.html"
    assert target("../../exercises/chapter4/ex4_1_sigma_dot.ipynb", "notebooks/zh", "zh") is None
    page = builder.rewrite_links('<a href="../exercises/chapter4/ex4_1.ipynb">exercise 4.1</a>', "notebooks",
                                 targets)
    assert page.startswith('<span class="ntk-offsite"') and "exercises/chapter4/ex4_1.ipynb" in page


def test_check_cells_are_left_out_and_answers_stay_collapsed(site, edition):
    """A lesson's verification cells (tagged check) are for JupyterLab and nbval, not for readers of the site;
    the answers to its questions are on the page, inside <details> (closed until the reader opens them)."""
    out, _ = site
    for lesson in _lessons(edition):
        nb = nbformat.read(lesson, as_version=4)
        page = html.unescape((out / edition.folder / f"{lesson.stem}.html").read_text(encoding="utf-8"))
        checks = [c for c in nb.cells if c.cell_type == "code" and "check" in c.metadata.get("tags", [])]
        shown = [c.source.splitlines()[0] for c in checks if c.source.strip() and c.source.splitlines()[0] in page]
        assert not shown, f"{edition.folder}/{lesson.stem}.html shows check cells starting {shown[:3]}"
        answers = sum(c.source.count("<details>") for c in nb.cells if c.cell_type == "markdown")
        assert page.count("<details>") == answers, \
            f"{lesson.stem}: expected {answers} collapsed answers on the page, found {page.count('<details>')}"
