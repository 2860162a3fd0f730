"""Text that code prints, in the lesson's language: the gettext way, ``_("English {x:.3f}").format(x=...)``.

English is the default and the message itself: :func:`gettext` returns it unchanged and reads nothing. In a
Chinese lesson (``language.lesson_language() == "zh"``) it returns the translation from the catalog
``ntk_helpers/course/locale/zh/ntk_helpers.po``, which ships with the package (so Colab has it too). The catalog
holds every marked string of the package and of the lessons' code cells; ``tools/zh_catalog.py update`` extracts
them (calls of ``_``, and the first argument of the one-line checks ``check_close``, ``check_between`` and
``check_that``, which translate it themselves) and ``tools/zh_catalog.py check`` fails while one is untranslated.

Only the standard library reads the catalog (Babel writes it; the reader below understands what Babel writes:
``msgid``/``msgstr`` with continued lines and the ``fuzzy`` flag; a fuzzy entry counts as untranslated). A marked
string with no translation is printed in English and recorded (``language.untranslated``; ``tools/build_zh.py``
then fails naming it). Numbers are formatted after translation, so they are never translated.
"""

from __future__ import annotations

import ast
from functools import lru_cache
from pathlib import Path

from . import language

DOMAIN = "ntk_helpers"
CATALOG = Path(__file__).resolve().parent / "locale" / "zh" / f"{DOMAIN}.po"
#: Functions whose first argument is a message (they call :func:`gettext` on it); tools/zh_catalog.py extracts them.
KEYWORDS = {"_": None, "gettext": None, "check_close": (1,), "check_between": (1,), "check_that": (1,)}


def gettext(message: str) -> str:
    """``message`` in the active language (see the module docstring); any non-string passes unchanged."""
    if not isinstance(message, str) or not message or language.active_language() != "zh":
        return message
    translated = read_catalog(CATALOG).get(message)
    if translated:
        return translated
    language.record_untranslated(message)
    return message


_ = gettext


@lru_cache(maxsize=4)
def read_catalog(path: Path) -> dict[str, str]:
    """``{msgid: msgstr}`` of the translated, non-fuzzy entries of a ``.po`` file (empty when it is missing)."""
    if not path.exists():
        return {}
    entries: dict[str, str] = {}
    msgid = msgstr = None
    fuzzy = False
    field = None

    def finish():
        if msgid and msgstr and not fuzzy:
            entries[msgid] = msgstr

    for raw in path.read_text(encoding="utf-8").splitlines() + [""]:
        line = raw.strip()
        if not line:
            finish()
            msgid = msgstr = None
            fuzzy, field = False, None
        elif line.startswith("#,"):
            fuzzy = fuzzy or "fuzzy" in line
        elif line.startswith("#"):
            continue
        elif line.startswith("msgid "):
            msgid, field = ast.literal_eval(line[6:]), "msgid"
        elif line.startswith("msgstr "):
            msgstr, field = ast.literal_eval(line[7:]), "msgstr"
        elif line.startswith('"'):
            if field == "msgid":
                msgid += ast.literal_eval(line)
            elif field == "msgstr":
                msgstr += ast.literal_eval(line)
    return entries
