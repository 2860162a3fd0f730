"""Build a static HTML site of the executed lessons that works offline (for students without a kernel).

    python tools/build_site.py [output folder, default build/site]

Each notebooks/NN_name.ipynb (already executed by tools/build_notebooks.py) becomes NN_name.html, with
previous/next links and a link back to index.html, which lists the lessons in a table (title from each
lesson's first heading, book section and description from lesson 00's map). ERRATA.md becomes errata.html.

The Chinese edition (notebooks/zh/NN_name.ipynb) is built the same way into zh/: zh/NN_name.html, its own
zh/index.html (from the Chinese lesson 00's map) and <html lang="zh-CN">; the site's own words (navigation,
index, snapshot notes) are in Chinese there. Every page has a language switch: an English lesson links its
Chinese twin ("中文"), a Chinese lesson its English one ("English"), the index pages each other (a page
without a twin, such as the errata page, links the other edition's index).

Nothing is loaded from another host:
- MathJax 2.7 is copied into the site (mathjax/) from the PyPI package ``jupyter-server-mathjax``;
- nbconvert's lab template links require.js, the widget manager and mermaid from CDNs: those blocks are
  removed here (the lessons need none of them);
- a widget (slider panel) cannot run without a kernel, so each one is replaced by its saved snapshot:
  the settings its controls had, and the text and plots its Output widget showed at those settings
  (from the notebook's widget state), with a note that moving the sliders needs JupyterLab or Voila.

Links are resolved as paths of the course and pointed at the page that shows that file: lessons
(notebooks/NN_name.ipynb, notebooks/zh/NN_name.ipynb) become their pages, ERRATA.md becomes errata.html (in
English only: Chinese lessons link ../errata.html); links to other course files (exercises, README) are not
part of the site and become plain text naming the file. Fails if a lesson contains an error output. Serve the
folder (``python -m http.server -d build/site``) or open index.html directly.
"""

from __future__ import annotations

import copy
import html
import importlib.util
import posixpath
import re
import shutil
import sys
from pathlib import Path
from typing import NamedTuple

import nbformat
from jinja2 import DictLoader
from nbconvert import HTMLExporter
from nbconvert.filters.markdown_mistune import markdown2html_mistune

ROOT = Path(__file__).resolve().parents[1]
LESSONS = ROOT / "notebooks"
ERRATA = ROOT / "ERRATA.md"
#: Each edition's errata page: ERRATA.md -> errata.html; the Chinese one (generated from a catalog by
#: tools/zh_catalog.py) -> zh/errata.html.
ERRATA_SOURCES = {"": "ERRATA.md", "zh": "ERRATA.zh.md"}
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
MATHJAX_CONFIG = "TeX-AMS-MML_HTMLorMML-full,Safe"     # the combined configuration jupyter-server-mathjax ships

# MathJax 2 from the site's own mathjax/ folder, with the only output and fonts that package ships (HTML-CSS,
# STIX-Web). Its blank measuring font points to local() instead of about:blank, which Chromium refuses loudly.
# One typesetting pass (no fast preview, no assistive MathML copy: half the work on a long lesson).
# TeX errors and undefined macros are logged to the console (a test fails on console errors), and
# <html data-mathjax="typeset"> marks the end of the first typesetting pass.
MATHJAX_HEAD = """<script type="text/x-mathjax-config">
MathJax.Hub.Config({
  tex2jax: {inlineMath: [["$", "$"], ["\\\\(", "\\\\)"]], displayMath: [["$$", "$$"], ["\\\\[", "\\\\]"]],
            processEscapes: true, processEnvironments: true},
  TeX: {equationNumbers: {autoNumber: "AMS", useLabelIds: true},
        noErrors: {disabled: true}, noUndefined: {disabled: true}},
  displayAlign: "center",
  messageStyle: "none",
  "HTML-CSS": {availableFonts: [], preferredFont: null, webFont: "STIX-Web", imageFont: null,
               linebreaks: {automatic: true},
               styles: {"@font-face": {"font-family": "MathJax_Blank", src: "local('MathJax_Blank')"}}},
  "fast-preview": {disabled: true},
  menuSettings: {assistiveMML: false}
});
MathJax.Hub.Register.MessageHook("TeX Jax - parse error", function (m) {
  console.error("MathJax TeX error: " + m[1] + " in: " + m[2]);
});
MathJax.Hub.Register.MessageHook("Math Processing Error", function (m) {
  console.error("MathJax processing error: " + m[2]);
});
MathJax.Hub.Register.StartupHook("End", function () {
  document.documentElement.setAttribute("data-mathjax", "typeset");
});
</script>
<script src="{root}mathjax/MathJax.js?config=%s"></script>""" % MATHJAX_CONFIG

# The site's style sheet, and an empty icon (no request for a missing /favicon.ico). In both heads {root} is
# the way from a page's folder to the site's top folder ("" or "../").
SITE_HEAD = '<link rel="stylesheet" href="{root}site.css">\n<link rel="icon" href="data:,">'

# nbconvert's lab template, minus everything that would load from a CDN, plus the site's CSS and navigation.
# Code cells are shown as Pygments highlights them, without the lab template's extra pass through bleach:
# Pygments escapes the code already, and that pass took half of the build time.
TEMPLATE = """{%- extends 'index.html.j2' -%}
{%- block html_head_js_requirejs -%}{%- endblock html_head_js_requirejs -%}
{%- block jupyter_widgets -%}{%- endblock jupyter_widgets -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
{%- block html_head_js_mathjax -%}{{ resources.ntk_mathjax }}{%- endblock html_head_js_mathjax -%}
{%- block html_head_css -%}{{ resources.ntk_head }}{%- endblock html_head_css -%}
{%- block body_header -%}{{ super() }}{{ resources.ntk_nav }}{%- endblock body_header -%}
{%- block body_footer -%}{{ resources.ntk_nav }}{{ super() }}{%- endblock body_footer -%}
{% block input %}
<div class="jp-CodeMirrorEditor jp-Editor jp-InputArea-editor" data-type="inline">
     <div class="cm-editor cm-s-jupyter">
{{ cell.source | highlight_code(metadata=cell.metadata) }}
     </div>
</div>
{%- endblock input %}
"""

CSS = """/* ntk-notebooks static site */
body.ntk-index, body.ntk-page { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans",
  "Noto Sans CJK SC", sans-serif; line-height: 1.5; color: #1f2328; margin: 0; }
.ntk-index main { max-width: 62rem; margin: 0 auto; padding: 1.5rem 1rem 3rem; }
.ntk-index h1 { font-size: 1.8rem; margin: 0.5rem 0 0.25rem; }
.ntk-index .ntk-lead { color: #59636e; margin-top: 0; }
.ntk-lessons { border-collapse: collapse; width: 100%; margin: 1rem 0 1.5rem; }
.ntk-lessons th, .ntk-lessons td { text-align: left; vertical-align: top; padding: 0.45rem 0.6rem;
  border-bottom: 1px solid #d1d9e0; }
.ntk-lessons th { background: #f6f8fa; font-weight: 600; white-space: nowrap; }
.ntk-lessons td.ntk-num { font-variant-numeric: tabular-nums; color: #59636e; width: 2.5rem; }
.ntk-lessons td.ntk-section { white-space: nowrap; }
.ntk-lessons tr:hover td { background: #f6f8fa; }
a { color: #0b5cad; }
.ntk-nav { display: flex; flex-wrap: wrap; gap: 0.5rem 1.25rem; align-items: center; padding: 0.6rem 1rem;
  margin: 0 0 1rem; background: #f6f8fa; border: 1px solid #d1d9e0; border-radius: 6px;
  font-family: system-ui, sans-serif; font-size: 0.95rem; }
.ntk-nav .ntk-next { margin-left: auto; }
.ntk-nav a { text-decoration: none; }
.ntk-nav a:hover { text-decoration: underline; }
main > .ntk-nav:last-child { margin-top: 2rem; }
.ntk-widget-note { background: #fff8e1; border-left: 4px solid #e69f00; padding: 0.4rem 0.75rem;
  font-family: system-ui, sans-serif; font-size: 0.92rem; }
.jp-RenderedHTMLCommon .ntk-widget-note code { background: #f3ecd6; padding: 0 0.2rem; border-radius: 3px; }
.ntk-offsite { border-bottom: 1px dotted #59636e; }
.ntk-errata main { max-width: 62rem; margin: 0 auto; }
.ntk-index .ntk-nav { margin: 0 0 0.5rem; }
"""


class Edition:
    """One language of the course: lessons in notebooks/<folder>/, pages in <site>/<folder>/."""

    def __init__(self, lang: str, folder: str, name: str, text: dict[str, str]):
        self.lang = lang          # <html lang> of its pages (BCP 47)
        self.folder = folder      # "" (English) or "zh": the same folder under notebooks/ and under the site
        self.name = name          # the text of the language switch that leads to this edition, in its language
        self.text = text          # the site's own words on its pages

    def __repr__(self) -> str:
        return f"Edition({self.lang!r})"

    @property
    def source(self) -> Path:
        return LESSONS / self.folder

    @property
    def course_dir(self) -> str:
        """Its lessons' folder as a course path ("notebooks", "notebooks/zh"): the base of their links."""
        return posixpath.join("notebooks", self.folder) if self.folder else "notebooks"

    def page(self, name: str) -> str:
        """The site path of one of its pages ("02_mlp_recursion.html" -> "zh/02_mlp_recursion.html")."""
        return posixpath.join(self.folder, name) if self.folder else name

    @property
    def errata_source(self) -> Path:
        return ROOT / ERRATA_SOURCES[self.folder]

    def errata_page(self) -> str:
        """The site path of the errata page this edition's pages link: its own, else the English one."""
        return self.page("errata.html") if self.errata_source.exists() else "errata.html"

    def dashboard(self, stem: str) -> str:
        """What ``make dashboard LESSON=...`` needs to serve one of its lessons."""
        return self.page(stem)


ENGLISH = Edition("en", "", "English", {
    "nav": "lessons",
    "home": "All lessons",
    "errata": "Errata",
    "snapshot": ("<strong>Static snapshot</strong>{at}. Moving the sliders needs a running Python: open the "
                 "lesson in JupyterLab (<code>make lab</code>) or as a dashboard "
                 "(<code>make dashboard LESSON={lesson}</code>)."),
    "snapshot_at": " at {settings}",
    "no_output": " (This widget saved no output.)",
    "title": "NTK lessons",
    "heading": "Neural tangent kernel lessons",
    "lead": ("The executed lessons of ntk-notebooks: every number and plot as computed. Section numbers\n"
             "follow chapter 4 of the textbook; start with lesson 00."),
    "columns": "#|lesson|book section|what you will see",
    "errata_note": ("Where the textbook or the overview is wrong, the lessons say so and show the correct "
                    "statement with an experiment; every such error is listed on the "
                    '<a href="{errata}">errata page</a>.'),
    "static_note": ("This site is static: the slider panels show a snapshot at their default settings. To move "
                    "the sliders\nand run the code, open the lessons in JupyterLab (<code>make lab</code>) or one "
                    "lesson as a dashboard\n(<code>make dashboard LESSON={lesson}</code>)."),
})

CHINESE = Edition("zh-CN", "zh", "中文", {
    "nav": "课程导航",
    "home": "全部课程",
    "errata": "勘误表",
    "snapshot": ("<strong>静态快照</strong>{at}。拖动滑块需要运行中的 Python：在 JupyterLab 中打开本课"
                 "（<code>make lab</code>），或把它作为仪表板打开（<code>make dashboard LESSON={lesson}</code>）。"),
    "snapshot_at": "，设置为 {settings}",
    "no_output": "（这个控件没有保存输出。）",
    "title": "NTK 课程（中文版）",
    "heading": "神经正切核课程",
    "lead": ("ntk-notebooks 已执行的课程：每个数字、每张图都是实际运行的结果。各节编号与教材第 4 章一致；"
             "请从第 00 课开始。"),
    "columns": "#|课程|教材章节|你将看到的内容",
    "errata_note": ("凡是教材或综述有误的地方，课程都会指出，并用实验给出正确的说法；所有这些错误都列在"
                    '<a href="{errata}">勘误表</a>中。'),
    "static_note": ("本网站是静态的：滑块面板显示的是默认设置下的快照。要拖动滑块、运行代码，请在 JupyterLab 中"
                    "打开课程（<code>make lab</code>），或把某一课作为仪表板打开"
                    "（<code>make dashboard LESSON={lesson}</code>）。"),
})

EDITIONS = (ENGLISH, CHINESE)


class Lesson(NamedTuple):
    path: Path
    title: str          # "02 · The MLP recursion, kernel collapse and the edge of chaos"
    section: str        # book section, from lesson 00's map (or the lesson's first cell)
    description: str    # one line, markdown, from lesson 00's map

    @property
    def number(self) -> str:
        return self.path.stem.split("_")[0]             # "02", or "05a" for a lesson in parts

    @property
    def html_name(self) -> str:
        return f"{self.path.stem}.html"

    @property
    def short_title(self) -> str:
        return re.split(r"[:：]", self.title, maxsplit=1)[0].strip()


def lesson_title(nb) -> str:
    first = nb.cells[0].source.splitlines()[0]
    return first.lstrip("# ").strip()


def _table_rows(markdown: str):
    """Rows (lists of cell texts) of every markdown table in ``markdown``, header rows included."""
    for line in markdown.splitlines():
        line = line.strip()
        if line.startswith("|") and not re.fullmatch(r"\|[\s:|-]*\|?", line):
            yield [cell.strip() for cell in line.strip("|").split("|")]


# Header words of lesson 00's tables, in every edition: the lessons table's book-section column, and the
# first column of the exercises table (skipped).
SECTION_WORDS, BOOK_WORDS, EXERCISE_WORDS = ("section", "章节"), ("book", "教材"), ("exercise", "习题")


def lesson_map(nb00) -> dict[str, tuple[str, str]]:
    """{"02": (book section, description), "05a": ...} from the lesson table in lesson 00 ("| lesson | book section | ...|",
    in Chinese "| 课程 | 教材章节 | ...|")."""
    found: dict[str, tuple[str, str]] = {}
    for cell in nb00.cells:
        if cell.cell_type != "markdown":
            continue
        rows = list(_table_rows(cell.source))
        if not rows:
            continue
        header = [h.lower() for h in rows[0]]
        middle = range(1, len(header) - 1)                  # first column: the lesson; last: the description
        section_col = next((i for i in middle if any(w in header[i] for w in SECTION_WORDS)),
                           next((i for i in middle if any(w in header[i] for w in BOOK_WORDS)), None))
        if section_col is None or any(w in header[0] for w in EXERCISE_WORDS):
            continue
        for row in rows[1:]:
            number = re.search(r"\b(\d\d[a-z]?)\b", row[0])
            if number and len(row) == len(header):
                found.setdefault(number.group(1), (row[section_col], row[-1]))
    return found


def _first_cell_section(nb) -> str:
    """The italic source line under a lesson's title, e.g. "*Chapter 4.1.*" -> "Chapter 4.1"."""
    for line in nb.cells[0].source.splitlines()[1:8]:
        match = re.fullmatch(r"\*([^*]+?)[.。]?\*", line.strip())
        if match:
            return match.group(1)
    return "—"


def read_lessons(edition: Edition = ENGLISH) -> list[Lesson]:
    paths = sorted(edition.source.glob("[0-9][0-9]*_*.ipynb"))
    notebooks = {p: nbformat.read(p, as_version=4) for p in paths}
    table = lesson_map(notebooks[paths[0]]) if paths else {}
    lessons = []
    for path, nb in notebooks.items():
        section, description = table.get(path.stem.split("_")[0], (_first_cell_section(nb), ""))
        lessons.append(Lesson(path, lesson_title(nb), section, description))
    return lessons


def inline_markdown(text: str) -> str:
    """Markdown of one table cell -> HTML without the enclosing paragraph (math stays for MathJax)."""
    rendered = markdown2html_mistune(text).strip()
    return re.sub(r"^<p>(.*)</p>$", r"\1", rendered, flags=re.S)


# ---------------------------------------------------------------------------------------------- widgets
def _control_value(state: dict) -> str | None:
    labels = state.get("_options_labels")
    if labels is not None and isinstance(state.get("index"), int):
        return str(labels[state["index"]])
    if "value" not in state:
        return None
    value = state["value"]
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, (list, tuple)):
        return "–".join(str(v) for v in value)
    fmt = state.get("readout_format")
    if fmt and isinstance(value, (int, float)):
        try:
            return format(value, fmt)
        except (ValueError, TypeError):
            pass
    return str(value)


def widget_snapshot(model_id: str, state: dict, lesson_stem: str, edition: Edition = ENGLISH) -> list:
    """The outputs that replace one widget view: a note with the control settings, then the text and
    plots its Output widgets showed (as saved in the notebook's widget state)."""
    controls: list[tuple[str, str]] = []
    outputs: list = []

    def walk(mid: str) -> None:
        model = state.get(mid.removeprefix("IPY_MODEL_"))
        if model is None:
            return
        name, s = model.get("model_name", ""), model.get("state", {})
        if name == "OutputModel":
            outputs.extend(nbformat.from_dict(copy.deepcopy(o)) for o in s.get("outputs", []))
        elif name in ("HTMLModel", "HTMLMathModel") and s.get("value"):
            outputs.append(nbformat.v4.new_output("display_data", data={"text/html": s["value"]}))
        elif name == "LabelModel" and s.get("value"):
            outputs.append(nbformat.v4.new_output("stream", name="stdout", text=s["value"] + "\n"))
        elif s.get("description") and not name.startswith("Button"):
            value = _control_value(s)
            if value is not None:
                controls.append((s["description"], value))
        for child in s.get("children", []):
            walk(child)

    walk(model_id)
    words = edition.text
    settings = " · ".join(f"{html.escape(k)} = {html.escape(v)}" for k, v in controls)
    note = words["snapshot"].format(at=words["snapshot_at"].format(settings=settings) if settings else "",
                                    lesson=html.escape(edition.dashboard(lesson_stem)))
    if not outputs:
        note += words["no_output"]
    note = f'<div class="ntk-widget-note">{note}</div>'
    return [nbformat.v4.new_output("display_data", data={"text/html": note}), *outputs]


def is_progress_bar(model_id: str, state: dict) -> bool:
    """A tqdm bar (a box around a progress model): it showed how far a slow cell had got, nothing to keep."""
    model = state.get(model_id, {})
    children = [state.get(c.removeprefix("IPY_MODEL_"), {}) for c in model.get("state", {}).get("children", [])]
    return any(c.get("model_name") in ("FloatProgressModel", "IntProgressModel") for c in children)


def freeze_widgets(nb, lesson_stem: str, edition: Edition = ENGLISH):
    """A copy of ``nb`` in which every widget view is replaced by its static snapshot (see above) and
    every progress bar is dropped."""
    nb = copy.deepcopy(nb)
    state = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        new_outputs = []
        for output in cell.outputs:
            view = output.get("data", {}).get(WIDGET_VIEW)
            if view is None:
                new_outputs.append(output)
            elif not is_progress_bar(view["model_id"], state):
                new_outputs.extend(widget_snapshot(view["model_id"], state, lesson_stem, edition))
        cell.outputs = new_outputs
    nb.metadata.pop("widgets", None)
    return nb


# ------------------------------------------------------------------------------------------------ links
_ANCHOR = re.compile(r'<a\s([^>]*?)href="([^"]*)"([^>]*)>(.*?)</a>', re.S)
_HEADING = re.compile(r'<h([1-6])([^>]*)\sid="([^"]+)"([^>]*)>(.*?)</h\1>', re.S)


def relative(target: str, here: str) -> str:
    """The link from a page in the site folder ``here`` ("" or "zh") to the site path ``target``."""
    return posixpath.relpath(target, here or ".")


def site_targets(editions: dict[Edition, list[Lesson]] | None = None, has_errata: bool = True) -> dict[str, str]:
    """{course path: site path} of every course file the site shows: "notebooks/zh/02_mlp_recursion" (a lesson,
    without its extension: .ipynb, .py and .html all lead there) -> "zh/02_mlp_recursion.html",
    "ERRATA.md" -> "errata.html", "ERRATA.zh.md" -> "zh/errata.html"."""
    targets = {"ERRATA.md": "errata.html"} if has_errata else {}
    if has_errata and (ROOT / ERRATA_SOURCES["zh"]).exists():
        targets[ERRATA_SOURCES["zh"]] = "zh/errata.html"
    for edition, lessons in (editions or {}).items():
        for lesson in lessons:
            targets[f"{edition.course_dir}/{lesson.path.stem}"] = edition.page(lesson.html_name)
    return targets


def site_target(href: str, base: str, targets: dict[str, str], here: str = "") -> str | None:
    """Where a link of a course file in the folder ``base`` ("notebooks", "notebooks/zh", "" for ERRATA.md)
    points in the site, relative to the page's site folder ``here`` (None: a course file not in the site)."""
    if href.startswith("#") or re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", href):
        return href                                                   # in-page or another site: unchanged
    path, _, fragment = href.partition("#")
    fragment = f"#{fragment}" if fragment else ""
    course = posixpath.normpath(posixpath.join(base, path))
    stem, ext = posixpath.splitext(course)
    target = targets.get(course) or (targets.get(stem) if ext in (".ipynb", ".py", ".html") else None)
    return None if target is None else relative(target, here) + fragment


def rewrite_links(page: str, base: str, targets: dict[str, str], here: str = "") -> str:
    """Point the links of a page rendered from a course file in the folder ``base`` into the site."""

    def fix(match: re.Match) -> str:
        before, href, after, text = match.groups()
        target = site_target(html.unescape(href), base, targets, here)
        if target is None:
            course_file = posixpath.normpath(posixpath.join(base, html.unescape(href)))
            return (f'<span class="ntk-offsite" title="not in this site: the course file '
                    f'{html.escape(course_file)}">{text}</span>')
        return f'<a {before}href="{html.escape(target)}"{after}>{text}</a>'

    return _ANCHOR.sub(fix, page)


def github_slug(text: str) -> str:
    """The anchor GitHub gives a heading (what ``[x](#chapter-4)`` in ERRATA.md expects)."""
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def add_heading_aliases(page: str) -> str:
    """Give each heading its GitHub-style id too (nbconvert's ids keep case and punctuation)."""
    ids = set(re.findall(r'\sid="([^"]+)"', page))

    def alias(match: re.Match) -> str:
        level, pre, hid, post, inner = match.groups()
        text = html.unescape(re.sub(r"<[^>]+>", "", re.sub(r'<a class="anchor-link".*?</a>', "", inner)))
        slug = github_slug(text)
        if not slug or slug in ids:
            return match.group(0)
        ids.add(slug)
        return f'<h{level}{pre} id="{hid}"{post}><a id="{html.escape(slug)}"></a>{inner}</h{level}>'

    return _HEADING.sub(alias, page)


# ------------------------------------------------------------------------------------------------ pages
def language_switch(edition: Edition, target: str, here: str) -> str:
    """The link to ``edition``'s version of a page (site path ``target``), from a page in ``here``."""
    return (f'<a class="ntk-lang" href="{html.escape(relative(target, here))}" hreflang="{edition.lang}" '
            f'lang="{edition.lang}">{edition.name}</a>')


def navigation(lessons: list[Lesson], i: int | None, has_errata: bool, edition: Edition = ENGLISH,
               switches: str = "") -> str:
    """Previous/next links, the index, the errata page and the language switch (``i`` = this lesson's position,
    None: a page that is no lesson). The page lies in ``edition``'s folder (errata.html: English)."""
    words, errata = edition.text, relative(edition.errata_page(), edition.folder)
    parts = []
    if i is not None and i > 0:
        prev = lessons[i - 1]
        parts.append(f'<a class="ntk-prev" rel="prev" href="{prev.html_name}">← {html.escape(prev.short_title)}</a>')
    parts.append(f'<a class="ntk-home" href="index.html">{words["home"]}</a>')
    if has_errata:
        parts.append(f'<a class="ntk-errata" href="{errata}">{words["errata"]}</a>')
    parts.append(switches)
    if i is not None and i + 1 < len(lessons):
        nxt = lessons[i + 1]
        parts.append(f'<a class="ntk-next" rel="next" href="{nxt.html_name}">{html.escape(nxt.short_title)} →</a>')
    return f'<nav class="ntk-nav" aria-label="{words["nav"]}">' + "".join(parts) + "</nav>"


def head(edition: Edition) -> tuple[str, str]:
    """The site's style sheet and MathJax, as linked from a page in ``edition``'s folder."""
    root = relative(".", edition.folder) + "/" if edition.folder else ""
    return SITE_HEAD.replace("{root}", root), MATHJAX_HEAD.replace("{root}", root)


def index_page(lessons: list[Lesson], has_errata: bool, edition: Edition = ENGLISH, switches: str = "") -> str:
    words = edition.text
    rows = "\n".join(
        f'<tr><td class="ntk-num">{lesson.number}</td>'
        f'<td><a href="{lesson.html_name}">{html.escape(lesson.title.split("·", 1)[-1].strip())}</a></td>'
        f'<td class="ntk-section">{inline_markdown(lesson.section)}</td>'
        f"<td>{inline_markdown(lesson.description)}</td></tr>"
        for lesson in lessons)
    errata = (f'<p>{words["errata_note"].format(errata=relative(edition.errata_page(), edition.folder))}</p>'
              if has_errata else "")
    columns = "".join(f"<th>{c}</th>" for c in words["columns"].split("|"))
    nav = f'<nav class="ntk-nav" aria-label="{words["nav"]}">{switches}</nav>\n' if switches else ""
    site_css, mathjax = head(edition)
    static_note = words["static_note"].format(lesson=edition.dashboard("02_mlp_recursion"))
    return f"""<!DOCTYPE html>
<html lang="{edition.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>{words["title"]}</title>
{site_css}
{mathjax}
</head>
<body class="ntk-index">
<main>
{nav}<h1>{words["heading"]}</h1>
<p class="ntk-lead">{words["lead"]}</p>
<table class="ntk-lessons">
<thead><tr>{columns}</tr></thead>
<tbody>
{rows}
</tbody>
</table>
{errata}
<p>{static_note}</p>
</main>
</body>
</html>
"""


def copy_mathjax(out: Path) -> None:
    spec = importlib.util.find_spec("jupyter_server_mathjax")
    if spec is None or spec.origin is None:
        raise RuntimeError("the site serves MathJax from the package jupyter-server-mathjax, which is missing: "
                           "run `make setup` (it is in the `lab` extra of pyproject.toml)")
    static = Path(spec.origin).parent / "static"
    if (out / "mathjax").exists():
        shutil.rmtree(out / "mathjax")
    shutil.copytree(static, out / "mathjax", ignore=shutil.ignore_patterns("__pycache__"))


NAV_MARK = "<!-- ntk-nav -->"     # where the template puts the navigation, filled in after the links are rewritten


def build_site(out: Path) -> list[Path]:
    """Write the site into ``out``; returns the lesson pages, English first (out/NN_name.html), then every other
    edition that has lessons (out/zh/NN_name.html)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    copy_mathjax(out)
    (out / "site.css").write_text(CSS, encoding="utf-8")
    exporter = HTMLExporter(template_name="lab", extra_loaders=[DictLoader({"ntk_site.html.j2": TEMPLATE})],
                            template_file="ntk_site.html.j2")
    editions = {e: read_lessons(e) for e in EDITIONS if e is ENGLISH or any(e.source.glob("[0-9][0-9]*_*.ipynb"))}
    has_errata = ERRATA.exists()
    targets = site_targets(editions, has_errata)

    def switches(edition: Edition, name: str) -> str:
        """Language links from ``edition``'s page ``name`` to its twins (or the other editions' index)."""
        links = []
        for other in editions:
            if other is not edition:
                twin = other.page(name) if other.page(name) in targets.values() else other.page("index.html")
                links.append(language_switch(other, twin, edition.folder))
        return "".join(links)

    def export(nb, edition: Edition, name: str, title: str, nav: str, body_class: str, base: str) -> Path:
        nb.metadata["title"] = title
        site_css, mathjax = head(edition)
        resources = {"ntk_mathjax": mathjax, "ntk_head": site_css, "ntk_nav": NAV_MARK,
                     "metadata": {"name": title}}
        body, _ = exporter.from_notebook_node(nb, resources=resources)
        body = body.replace('<body class="jp-Notebook"', f'<body class="jp-Notebook {body_class}"', 1)
        body = body.replace('<html lang="en">', f'<html lang="{edition.lang}">', 1)
        body = add_heading_aliases(rewrite_links(body, base, targets, edition.folder)).replace(NAV_MARK, nav)
        page = out / edition.page(name)
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(body, encoding="utf-8")
        return page

    pages = []
    for edition, lessons in editions.items():
        for i, lesson in enumerate(lessons):
            nb = nbformat.read(lesson.path, as_version=4)
            errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
            if errors:
                raise RuntimeError(f"{lesson.path.relative_to(ROOT)} has {len(errors)} error output(s); "
                                   "rebuild it with tools/build_notebooks.py")
            nav = navigation(lessons, i, has_errata, edition, switches(edition, lesson.html_name))
            nb.cells = [cell for cell in nb.cells if "check" not in cell.metadata.get("tags", [])]  # checks: lab only
            pages.append(export(freeze_widgets(nb, lesson.path.stem, edition), edition, lesson.html_name,
                                lesson.title, nav, "ntk-page", edition.course_dir))
        index = index_page(lessons, has_errata, edition, switches(edition, "index.html"))
        (out / edition.page("index.html")).write_text(index, encoding="utf-8")
    for edition in editions if has_errata else []:
        if edition.errata_page() != edition.page("errata.html"):
            continue                                                  # no errata of its own: links the English
        source = edition.errata_source
        text = nbformat.v4.new_markdown_cell(source.read_text(encoding="utf-8"), id="errata")   # same id each time
        errata = nbformat.v4.new_notebook(cells=[text])
        export(errata, edition, "errata.html", edition.text["errata"],
               navigation(editions[edition], None, True, edition, switches(edition, "errata.html")),
               "ntk-page ntk-errata", posixpath.dirname(source.relative_to(ROOT).as_posix()))
    return pages


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "build" / "site"
    for page in build_site(target):
        print(page)
    if (target / "errata.html").exists():
        print(target / "errata.html")
    for edition in EDITIONS:
        if (target / edition.page("index.html")).exists():
            print(target / edition.page("index.html"))
