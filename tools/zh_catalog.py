"""The Chinese lessons' text, kept as gettext catalogs: each ``notebooks/zh/NN_name.py`` is generated from the
English lesson ``notebooks/NN_name.py`` and the catalog ``notebooks/locale/zh/NN_name.po``, never edited by hand;
likewise ``ERRATA.zh.md`` from ``ERRATA.md`` and ``notebooks/locale/zh/ERRATA.po`` (one entry per paragraph).

    python tools/zh_catalog.py update [NN_name ...]    # after an English edit (make zh-catalog): a new English
                                                       # text gets an empty entry, a changed one keeps its old
                                                       # translation marked fuzzy, the changed sentence noted
    python tools/zh_catalog.py check                   # exit 1 naming every English text with no current
                                                       # translation and every Chinese source not as generated
    python tools/zh_catalog.py generate [NN_name ...]  # write notebooks/zh/NN_name.py and ERRATA.zh.md
                                                       # (tools/build_zh.py does this before it runs a lesson)
    (names: lessons such as 02_mlp_recursion, or ERRATA; none: all of them)

One catalog entry per English markdown cell: ``msgid`` is the English cell, ``msgstr`` its Chinese text. Code
cells are copied from the English lesson, so the two editions run the same code by construction. The line of
Colab/Binder links under a lesson's title is not translated text: it is left out of the entry and written for
each edition by ``tools/install_links.py``. Translators edit the ``.po`` files with any gettext tool (Poedit,
Weblate, Lokalize): fill ``msgstr``, clear the ``fuzzy`` flag once the translation says what the English now says.
"""

from __future__ import annotations

import difflib
import io
import re
import sys
from datetime import datetime, timezone
from pathlib import Path

import jupytext
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po

sys.path.insert(0, str(Path(__file__).resolve().parent))     # its sibling tools, also when loaded by file path
import install_links  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
FORMAT = "py:percent"
#: A fixed creation date for new catalogs: writing a catalog twice gives the same bytes.
EPOCH = datetime(2026, 12, 1, tzinfo=timezone.utc)
#: The comment `update` puts on a fuzzy entry: the English sentence that changed.
CHANGED = "English changed: "


class MissingTranslation(Exception):
    """Some English text of a lesson has no current Chinese translation (each problem names the text)."""

    def __init__(self, problems: list[str]):
        super().__init__("\n".join(problems))
        self.problems = problems


#: Markdown documents translated the same way, one entry per paragraph: catalog name -> (English, generated Chinese).
DOCUMENTS = {"ERRATA": ("ERRATA.md", "ERRATA.zh.md")}
#: The catalog of text that code prints (ntk_helpers.course.messages): every string marked ``_()`` (or given to a
#: one-line check) in the package and in the lessons' code cells, one entry per string. It ships with the package.
CODE = "ntk_helpers"
CODE_CATALOG = Path("ntk_helpers") / "course" / "locale" / "zh" / "ntk_helpers.po"


def code_messages(root: Path = ROOT) -> list[tuple[str, str]]:
    """``(message, where)`` for every marked string, package first, then the lessons' code cells in order
    (Babel's Python extractor with the keywords of ``ntk_helpers.course.messages.KEYWORDS``)."""
    from babel.messages.extract import extract_python

    keywords = {"_": None, "gettext": None, "check_close": (1,), "check_between": (1,), "check_that": (1,)}
    found: list[tuple[str, str]] = []

    def scan(code: str, where: str) -> None:
        for line, _function, message, _comments in extract_python(io.BytesIO(code.encode()), keywords, [], {}):
            text = message if isinstance(message, str) else message[0] if message else None
            if text:
                found.append((text, f"{where}:{line}"))

    for path in sorted((root / "ntk_helpers").rglob("*.py")):
        scan(path.read_text(encoding="utf-8"), path.relative_to(root).as_posix())
    for path in sorted((root / "notebooks").glob("[0-9][0-9]*_*.py")):
        for index, cell in enumerate(jupytext.read(path).cells):
            if cell.cell_type == "code":
                scan(cell.source, f"notebooks/{path.name} cell {index + 1}")
    return found


def lessons(names: list[str] | None = None, root: Path = ROOT) -> list[str]:
    """Lesson names (``NN_name``), or the given names checked; "ERRATA" (a document) is accepted too."""
    found = sorted(p.stem for p in (root / "notebooks").glob("[0-9][0-9]*_*.py"))
    unknown = sorted(set(names or []) - set(found) - set(DOCUMENTS) - {CODE})
    if unknown:
        raise SystemExit(f"no English lesson or document named {unknown}; they are {found + sorted(DOCUMENTS) + [CODE]}")
    return names or found


def catalogs(root: Path = ROOT) -> list[str]:
    """Every catalog: the lessons', then the documents', then the code's."""
    return lessons(root=root) + sorted(DOCUMENTS) + [CODE]


def _paragraphs(text: str) -> list[str]:
    return [block.strip("\n") for block in re.split(r"\n\s*\n", text) if block.strip()]


def _without_links(text: str) -> str:
    """A markdown cell without the Colab/Binder links line (install_links writes it for each edition)."""
    return install_links.LINKS_LINE.sub("", text)


def english_texts(name: str, root: Path = ROOT) -> list[str]:
    """The translatable units: a lesson's markdown cells, in order (the links line left out), or a document's
    paragraphs, or the code's marked strings."""
    if name == CODE:
        return list(dict.fromkeys(text for text, _ in code_messages(root)))
    if name in DOCUMENTS:
        return _paragraphs((root / DOCUMENTS[name][0]).read_text(encoding="utf-8"))
    cells = jupytext.read(root / "notebooks" / f"{name}.py").cells
    return [_without_links(c.source) for c in cells if c.cell_type == "markdown"]


def catalog_path(name: str, root: Path = ROOT) -> Path:
    if name == CODE:
        return root / CODE_CATALOG
    return root / "notebooks" / "locale" / "zh" / f"{name}.po"


def _new_catalog(name: str) -> Catalog:
    what = ("the text code prints (marked _() in ntk_helpers and the lessons' code), one entry per string"
            if name == CODE else f"the page {DOCUMENTS[name][0]}, one entry per paragraph" if name in DOCUMENTS
            else f"lesson {name} (notebooks/{name}.py), one entry per markdown cell")
    return Catalog(locale="zh_CN", domain=name, project="ntk-notebooks", version=project_version(),
                   header_comment=f"# Chinese text of {what}.\n"
                                  "# Translate msgstr; tools/zh_catalog.py writes everything else.\n#",
                   copyright_holder="the ntk-notebooks authors", msgid_bugs_address=install_links.issues_url(),
                   last_translator="ntk-notebooks translators", language_team="Chinese (Simplified)",
                   creation_date=EPOCH, revision_date=EPOCH, fuzzy=False)


def project_version() -> str:
    return install_links.project()["version"]


def read_catalog(name: str, root: Path = ROOT) -> Catalog:
    path = catalog_path(name, root)
    if not path.exists():
        return _new_catalog(name)
    with path.open("rb") as handle:
        return read_po(handle, locale="zh_CN", domain=name)


def write_catalog(catalog: Catalog, name: str, root: Path = ROOT) -> None:
    buffer = io.BytesIO()
    write_po(buffer, catalog, width=0, ignore_obsolete=True, sort_output=False)
    path = catalog_path(name, root)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(buffer.getvalue())


def template(name: str, root: Path = ROOT) -> Catalog:
    """What the English lesson asks to be translated, in lesson order, each entry located by its cell."""
    catalog = _new_catalog(name)
    if name == CODE:
        for text, where in code_messages(root):
            file, line = where.rsplit(":", 1)
            if text in catalog:
                catalog.get(text).locations.append((file, int(line)))
            else:
                catalog.add(text, locations=[(file, int(line))], auto_comments=["printed by code"],
                            flags=("python-brace-format",) if "{" in text else ())
        return catalog
    for index, text in enumerate(english_texts(name, root)):
        if text.strip() and text not in catalog:
            where, kind = (DOCUMENTS[name][0], "paragraph") if name in DOCUMENTS else (f"{name}.py", "markdown cell")
            catalog.add(text, locations=[(where, index + 1)], auto_comments=[kind])
    return catalog


def update(name: str, root: Path = ROOT) -> Catalog:
    """Merge the English lesson into its catalog as msgmerge does (Babel's ``Catalog.update``): unchanged entries
    stay, a changed text keeps the old translation as fuzzy with a comment ``#. English changed: <the sentence>``
    (Babel's own ``#| msgid`` does not survive a multi-line msgid, so it is not written), a new one is empty, and
    an entry whose English is gone is dropped."""
    catalog = read_catalog(name, root)
    english_of = {m.string: m.id for m in catalog if m.id and m.string}      # a translation -> its English
    catalog.update(template(name, root), update_creation_date=False)
    for message in catalog:
        was = english_of.get(message.string) if message.id and message.fuzzy else None
        if was is not None and was != message.id:        # tell the translator (and the check) what changed
            message.auto_comments = [c for c in message.auto_comments if not c.startswith(CHANGED)] + \
                [CHANGED + _short(_changed_sentence(was, message.id), 300)]
    write_catalog(catalog, name, root)
    return catalog


def _changed_sentence(old: str, new: str) -> str:
    """The first sentence of ``new`` that ``old`` does not have (what a translator must look at)."""
    split = lambda text: [s.strip() for s in re.split(r"(?<=[.!?:;])\s+|\n\n", text) if s.strip()]  # noqa: E731
    before = set(split(old))
    changed = [s for s in split(new) if s not in before]
    return (changed or split(new) or [new])[0]


def _short(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def problems(name: str, root: Path = ROOT) -> list[str]:
    """Every English text of the lesson without a current translation, each named (empty when all are current)."""
    catalog = read_catalog(name, root)
    found = []
    for index, text in enumerate(english_texts(name, root)):
        if not text.strip():
            continue
        where = (f"{CODE_CATALOG}, printed text" if name == CODE
                 else f"{DOCUMENTS[name][0]}, paragraph {index + 1}" if name in DOCUMENTS
                 else f"notebooks/{name}.py, markdown cell {index + 1}")
        message = catalog.get(text)
        if message is None or not message.string:
            known = [m.id for m in catalog if m.id and m.string]
            close = difflib.get_close_matches(text, known, n=1, cutoff=0.6)
            named = _changed_sentence(close[0], text) if close else text
            hint = " (an edit of a translated text: `make zh-catalog` keeps its old translation as fuzzy)" \
                if close else ""
            found.append(f"{where}: untranslated{hint}: {_short(named)!r}")
        elif message.fuzzy:
            changed = [c[len(CHANGED):] for c in message.auto_comments if c.startswith(CHANGED)]
            found.append(f"{where}: changed since it was translated (fuzzy): {_short(changed[0] if changed else text)!r}")
    return found


def generate_source(name: str, root: Path = ROOT) -> str:
    """The Chinese lesson's source: the English lesson with each markdown cell replaced by its translation."""
    gaps = problems(name, root)
    if gaps:
        raise MissingTranslation(gaps)
    catalog = read_catalog(name, root)
    if name in DOCUMENTS:
        return "\n\n".join(catalog.get(text).string for text in english_texts(name, root)) + "\n"
    english = root / "notebooks" / f"{name}.py"
    nb = jupytext.read(english)
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            text = _without_links(cell.source)
            cell.source = catalog.get(text).string if text.strip() else text
    text = jupytext.writes(nb, fmt=FORMAT)
    chinese = root / "notebooks" / "zh" / f"{name}.py"
    return install_links.updated_source(text, install_links.repository(), chinese)


def target_path(name: str, root: Path = ROOT) -> Path:
    """Where the generated Chinese text lives."""
    return root / DOCUMENTS[name][1] if name in DOCUMENTS else root / "notebooks" / "zh" / f"{name}.py"


def generate(name: str, root: Path = ROOT) -> Path:
    target = target_path(name, root)
    target.write_text(generate_source(name, root), encoding="utf-8")
    return target


def stale_sources(root: Path = ROOT) -> list[str]:
    """Chinese sources that differ from what their English lesson and catalog generate (hand edits, or not rebuilt)."""
    stale = []
    for name in catalogs(root):
        if name == CODE:
            continue                                   # nothing generated: the catalog itself ships
        try:
            fresh = generate_source(name, root)
        except MissingTranslation:
            continue                                   # reported by problems()
        target = target_path(name, root)
        english = DOCUMENTS[name][0] if name in DOCUMENTS else f"notebooks/{name}.py"
        if not target.exists() or target.read_text(encoding="utf-8") != fresh:
            stale.append(f"{target.relative_to(root)} is not what {english} and its catalog generate "
                         f"(edit {english} or notebooks/locale/zh/{name}.po, then "
                         f"`python tools/zh_catalog.py generate {name}`)")
    return stale


def main(argv: list[str]) -> int:
    command, names = (argv[0], argv[1:]) if argv else ("check", [])
    names = lessons(names) if names else catalogs()
    if command == "update":
        for name in names:
            catalog = update(name)
            todo = problems(name)
            print(f"{catalog_path(name).relative_to(ROOT)}: {len(catalog)} entries, {len(todo)} to translate")
        return 0
    if command == "generate":
        failed = False
        for name in [n for n in names if n != CODE]:
            try:
                print(f"wrote {generate(name).relative_to(ROOT)}")
            except MissingTranslation as gap:
                failed = True
                print("\n".join(gap.problems), file=sys.stderr)
        return 1 if failed else 0
    if command == "check":
        found = [p for name in names for p in problems(name)] + stale_sources()
        print("\n".join(found) or "every English text has a current translation; every Chinese source is generated")
        return 1 if found else 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
