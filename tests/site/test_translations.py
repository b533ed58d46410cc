"""The English catalogs are complete and compiled, and English pages carry no Spanish.

Every `django.po` under `<app>/locale/en/` and the project's `locale/en/` is checked: no empty
msgstr, no fuzzy entry, the same placeholders and edge whitespace as the msgid, and a compiled
`.mo` that gives back every translation of the `.po`. Then a few pages are fetched in English.
"""

from __future__ import annotations

import gettext
import json
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client

from tests.factories import login, make_user

ROOT = Path(settings.BASE_DIR)
SKIP_DIRS = {".venv", "node_modules", "staticfiles", "test-artifacts", ".git"}


def catalogs() -> list[Path]:
    found = [ROOT / "locale" / "en" / "LC_MESSAGES" / "django.po"]
    found += [
        po
        for po in sorted(ROOT.glob("*/locale/en/LC_MESSAGES/django.po"))
        if po.relative_to(ROOT).parts[0] not in SKIP_DIRS
    ]
    return [po for po in found if po.exists()]


CATALOGS = catalogs()
IDS = [str(po.relative_to(ROOT)) for po in CATALOGS]


# --- a small .po reader ---------------------------------------------------------------------


@dataclass
class Entry:
    line: int
    flags: set[str] = field(default_factory=set)
    msgctxt: str | None = None
    msgid: str = ""
    msgid_plural: str | None = None
    msgstr: dict[int, str] = field(default_factory=dict)

    @property
    def is_header(self) -> bool:
        return self.msgid == "" and self.msgctxt is None

    @property
    def forms(self) -> list[tuple[str, str]]:
        """(source, translation) pairs: the singular against msgid, the others against plural."""
        if self.msgid_plural is None:
            return [(self.msgid, self.msgstr.get(0, ""))]
        return [
            (self.msgid if n == 0 else self.msgid_plural, text)
            for n, text in sorted(self.msgstr.items())
        ]


_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "r": "\r"}
_KEYWORD = re.compile(r'^(msgctxt|msgid_plural|msgid|msgstr(?:\[(\d+)\])?)\s+"(.*)"\s*$')


def _unquote(body: str) -> str:
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), body)


def read_po(path: Path) -> list[Entry]:
    """Parse the entries of a .po file (obsolete `#~` entries are left out)."""
    entries: list[Entry] = []
    current: Entry | None = None
    target: tuple[str, int] | None = None

    def start(n: int) -> Entry:
        entry = Entry(line=n)
        entries.append(entry)
        return entry

    for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#~"):
            target = None
            continue
        if line.startswith("#"):
            if current is None or current.msgstr:
                current = start(n)
            if line.startswith("#,"):
                current.flags |= {f.strip() for f in line[2:].split(",") if f.strip()}
            target = None
            continue
        keyword = _KEYWORD.match(line)
        if keyword:
            name, index, body = keyword.groups()
            if current is None or (name in {"msgctxt", "msgid"} and current.msgstr):
                current = start(n)
            text = _unquote(body)
            if name == "msgctxt":
                current.msgctxt = text
            elif name == "msgid":
                current.msgid = text
            elif name == "msgid_plural":
                current.msgid_plural = text
            else:
                current.msgstr[int(index or 0)] = text
            target = (name, int(index or 0))
            continue
        assert line.startswith('"') and target and current, f"{path}:{n}: cannot read {raw!r}"
        text = _unquote(line[1:-1])
        name, index = target
        if name == "msgctxt":
            current.msgctxt = (current.msgctxt or "") + text
        elif name == "msgid":
            current.msgid += text
        elif name == "msgid_plural":
            current.msgid_plural = (current.msgid_plural or "") + text
        else:
            current.msgstr[index] += text
    return entries


def messages_of(path: Path) -> list[Entry]:
    return [entry for entry in read_po(path) if not entry.is_header]


def where(path: Path, entry: Entry) -> str:
    return f"{path.relative_to(ROOT)}:{entry.line} {entry.msgid!r}"


PERCENT = re.compile(r"%(?:\([^)]*\))?[#0 +-]*(?:\*|\d+)?(?:\.\d+)?[diouxXeEfFgGcrsa%]")
BRACE = re.compile(r"(?<!\{)\{[A-Za-z_]\w*(?:![rsa])?(?::[^{}]*)?\}(?!\})|(?<!\{)\{\d*\}(?!\})")


def placeholders(text: str) -> set[str]:
    found = {m for m in PERCENT.findall(text) if m != "%%"}
    return found | set(BRACE.findall(text))


# --- the catalogs ---------------------------------------------------------------------------


def test_the_catalogs_are_found() -> None:
    names = set(IDS)
    assert "locale/en/LC_MESSAGES/django.po" in names
    assert "games/locale/en/LC_MESSAGES/django.po" in names
    assert all(not name.startswith(tuple(SKIP_DIRS)) for name in names)


def test_a_source_text_has_one_translation_across_the_catalogs() -> None:
    """Django merges the apps' catalogs, so a Spanish text translated two ways in two apps gets
    whichever catalog wins, on every page: «Seguir» (the recuento's carry on) became «Follow»
    (a player) on the table. A word used in two senses needs a context (pgettext)."""
    translations: dict[tuple[str | None, str], dict[str, list[str]]] = {}
    for po in CATALOGS:
        for entry in messages_of(po):
            for source, text in entry.forms:
                found = translations.setdefault((entry.msgctxt, source), {})
                found.setdefault(text, []).append(where(po, entry))
    ambiguous = {key: found for key, found in translations.items() if len(found) > 1}
    assert ambiguous == {}


@pytest.mark.parametrize("po", CATALOGS, ids=IDS)
def test_every_entry_is_translated(po: Path) -> None:
    empty = [
        where(po, entry)
        for entry in messages_of(po)
        if not entry.msgstr or any(not text for _, text in entry.forms)
    ]
    assert empty == []


@pytest.mark.parametrize("po", CATALOGS, ids=IDS)
def test_no_entry_is_fuzzy(po: Path) -> None:
    fuzzy = [where(po, entry) for entry in read_po(po) if "fuzzy" in entry.flags]
    assert fuzzy == []


@pytest.mark.parametrize("po", CATALOGS, ids=IDS)
def test_plural_entries_have_both_english_forms(po: Path) -> None:
    wrong = [
        where(po, entry)
        for entry in messages_of(po)
        if entry.msgid_plural is not None and sorted(entry.msgstr) != [0, 1]
    ]
    assert wrong == []


@pytest.mark.parametrize("po", CATALOGS, ids=IDS)
def test_translations_keep_the_placeholders(po: Path) -> None:
    wrong = []
    for entry in messages_of(po):
        for source, text in entry.forms:
            if text and placeholders(source) != placeholders(text):
                wrong.append(f"{where(po, entry)}: {placeholders(source)} != {placeholders(text)}")
    assert wrong == []


@pytest.mark.parametrize("po", CATALOGS, ids=IDS)
def test_english_quotes_with_curly_quotes_and_leaves_no_spanish_word_behind(po: Path) -> None:
    # English quotes “Pass”, not «Pass»; «lleva» (a Mus word for having pares or juego) once
    # stayed Spanish in the middle of an English sentence.
    wrong = [
        f"{where(po, entry)}: {text}"
        for entry in messages_of(po)
        for _source, text in entry.forms
        if "«" in text or "»" in text or re.search(r"\blleva\b", text)
    ]
    assert wrong == []


@pytest.mark.parametrize("po", CATALOGS, ids=IDS)
def test_translations_keep_leading_and_trailing_whitespace(po: Path) -> None:
    def edges(text: str) -> tuple[str, str]:
        return text[: len(text) - len(text.lstrip())], text[len(text.rstrip()) :]

    wrong = [
        where(po, entry)
        for entry in messages_of(po)
        for source, text in entry.forms
        if text and edges(source) != edges(text)
    ]
    assert wrong == []


@pytest.mark.parametrize("po", CATALOGS, ids=IDS)
def test_the_compiled_catalog_matches_the_po(po: Path) -> None:
    mo = po.with_suffix(".mo")
    assert mo.exists(), f"{mo.relative_to(ROOT)} is missing: run compilemessages"
    with mo.open("rb") as handle:
        compiled = gettext.GNUTranslations(handle)
    assert compiled.info().get("content-type", "").lower().endswith("charset=utf-8")
    stale = []
    for entry in messages_of(po):
        if "fuzzy" in entry.flags or not entry.msgstr:
            continue
        if entry.msgid_plural is None:
            got = (
                compiled.gettext(entry.msgid)
                if entry.msgctxt is None
                else compiled.pgettext(entry.msgctxt, entry.msgid)
            )
            if got != entry.msgstr[0]:
                stale.append(f"{where(po, entry)}: .mo has {got!r}")
            continue
        for n, want in ((1, entry.msgstr.get(0)), (2, entry.msgstr.get(1))):
            got = (
                compiled.ngettext(entry.msgid, entry.msgid_plural, n)
                if entry.msgctxt is None
                else compiled.npgettext(entry.msgctxt, entry.msgid, entry.msgid_plural, n)
            )
            if got != want:
                stale.append(f"{where(po, entry)} (n={n}): .mo has {got!r}")
    assert stale == [], "the .mo is older than the .po: run compilemessages"


def test_the_reader_understands_plurals_contexts_and_glued_headers(tmp_path: Path) -> None:
    po = tmp_path / "django.po"
    po.write_text(
        'msgid ""\nmsgstr ""\n"Language: en\\n"\n'
        '#: a.py:1\n#, python-format\nmsgid "%(n)s jugador"\nmsgid_plural "%(n)s jugadores"\n'
        'msgstr[0] "%(n)s player"\nmsgstr[1] ""\n"%(n)s players"\n\n'
        'msgctxt "carta"\nmsgid "as"\nmsgstr "ace"\n\n'
        '#, fuzzy\nmsgid "{a} y {b}"\nmsgstr "{a} and"\n\n'
        '#~ msgid "viejo"\n#~ msgstr "old"\n',
        encoding="utf-8",
    )
    header, plural, card, fuzzy = read_po(po)
    assert header.is_header
    assert plural.flags == {"python-format"}
    assert plural.forms == [("%(n)s jugador", "%(n)s player"), ("%(n)s jugadores", "%(n)s players")]
    assert (card.msgctxt, card.msgid, card.msgstr) == ("carta", "as", {0: "ace"})
    assert "fuzzy" in fuzzy.flags
    assert placeholders(fuzzy.msgid) == {"{a}", "{b}"} != placeholders(fuzzy.msgstr[0])
    assert placeholders("100%% de %(name)s, %s y {n} {{x}}") == {"%(name)s", "%s", "{n}"}


# --- pages in English -----------------------------------------------------------------------

SHOWN_ATTRIBUTES = {"aria-label", "title", "placeholder", "alt", "data-confirm", "label"}


class Texts(HTMLParser):
    """What a visitor reads: text nodes and the attributes that are shown or spoken.

    Scripts and styles are left out, except the live table's words (the JSON of
    ``#table-labels``, which its scripts put on screen), and so is anything marked as another
    language (the language switch says «Español» in Spanish on purpose).
    """

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.chunks: list[str] = []
        self.html_lang = ""
        self._skip = 0
        self._foreign: list[str] = []
        self._labels: list[str] | None = None
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "html":
            self.html_lang = a.get("lang", "")
        elif (self._foreign and tag == self._foreign[0]) or not a.get("lang", "en").startswith(
            "en"
        ):
            self._foreign.append(tag)
        if tag in {"script", "style"}:
            self._skip += 1
        if tag == "script" and a.get("id") == "table-labels":
            self._labels = []
        if self._foreign:
            return
        for key, value in a.items():
            if key in SHOWN_ATTRIBUTES:
                self.chunks.append(" ".join(value.split()))

    def handle_endtag(self, tag: str) -> None:
        if tag in {"script", "style"}:
            self._skip -= 1
        if tag == "script" and self._labels is not None:
            groups = json.loads("".join(self._labels))
            self.chunks += [
                " ".join(w.split()) for words in groups.values() for w in words.values()
            ]
            self._labels = None
        if self._foreign and tag == self._foreign[-1]:
            self._foreign.pop()

    def handle_data(self, data: str) -> None:
        if self._labels is not None:
            self._labels.append(data)
            return
        text = " ".join(data.split())
        if text and not self._skip and not self._foreign:
            self.chunks.append(text)

    @property
    def text(self) -> str:
        return "\n".join(self.chunks)


def spanish_only_strings() -> set[str]:
    """Source strings of the games and site catalogs that read differently in English."""
    entries = [
        entry
        for po in CATALOGS
        if po.relative_to(ROOT).parts[0] in {"locale", "games"}
        for entry in messages_of(po)
    ]
    english = {text for entry in entries for text in entry.msgstr.values()}
    spanish = {
        source for entry in entries for source, text in entry.forms if text and text != source
    }
    return spanish - english


def english_page(
    client: Client, url: str, expected: list[str], spanish: list[str], *, catalog_check: bool = True
) -> Texts:
    """Fetch `url` and check its English; `catalog_check` also looks for any Spanish source string
    of the games and site catalogs shown as it is (off for the rules page, which keeps Spanish
    terms such as «sota» or «bastos» in italics on purpose)."""
    response = client.get(url)
    assert response.status_code == 200, url
    page = Texts(response.content.decode())
    assert page.html_lang == "en", url
    missing = [text for text in expected if text not in page.text]
    assert missing == [], f"{url} lacks English text"
    left = [text for text in spanish if text in page.text]
    assert left == [], f"{url} still shows Spanish"
    if catalog_check:
        untranslated = sorted(set(page.chunks) & spanish_only_strings())
        assert untranslated == [], f"{url} shows untranslated strings"
    return page


NAVIGATION = ["Tables", "Ranking", "Rules", "Online Mus, to 40 tantos, with 4 or 8 kings."]
SPANISH_NAVIGATION = ["Mesas", "Reglas", "Mus en línea", "Principal"]


@pytest.fixture
def english_client(client: Client) -> Client:
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    return client


@pytest.fixture
def english_player(client: Client, db: None) -> Client:
    login(make_user("hannah", language="en"), client)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    return client


@pytest.mark.django_db
def test_the_lobby_is_in_english_for_an_english_visitor(english_client: Client) -> None:
    english_page(
        english_client,
        "/",
        [
            *NAVIGATION,
            "Open tables",
            "Games in progress",
            "Fancy a game of Mus?",
            "Sign up",
            "Log in",
            "How to play",
            "Read the rules",
            "Main",
        ],
        [
            *SPANISH_NAVIGATION,
            "Mesas abiertas",
            "Partidas en juego",
            "¿Echamos un mus?",
            "Crear cuenta",
            "Entrar",
            "Cómo se juega",
            "Lee las reglas",
            "conectado",
        ],
    )


@pytest.mark.django_db
def test_the_rules_page_is_in_english_for_an_english_visitor(english_client: Client) -> None:
    english_page(
        english_client,
        "/reglas/",
        [*NAVIGATION, "Rules of Mus", "Sign up", "Log in", "The four lances", "Glossary"],
        [*SPANISH_NAVIGATION, "Reglas del mus", "Crear cuenta", "Entrar", "Los cuatro lances"],
        catalog_check=False,
    )


@pytest.mark.django_db
def test_a_signed_in_players_lobby_and_waiting_room_are_in_english(english_player: Client) -> None:
    english_page(
        english_player,
        "/",
        [*NAVIGATION, "Log out", "Create a table", "Practise against bots", "Mus · 4 kings"],
        [*SPANISH_NAVIGATION, "Salir", "Crear una mesa", "Practicar", "reyes"],
    )
    created = english_player.post("/mesas/nueva/", {"mode": "8-reyes"})
    assert created.status_code == 302
    english_page(
        english_player,
        created["Location"],
        [
            "Mus · 8 kings",
            "Seat 1 · Pair A",
            "Seat 2 · Pair B",
            "Start",
            "Fill with bots",
            "Close the table",
            "Leave the seat",
            "Seats 1 and 3 form one pair; seats 2 and 4, the other.",
        ],
        ["Asiento", "Pareja", "Empezar", "Levantarse", "anfitrión"],
    )


@pytest.mark.django_db
def test_a_practice_table_is_in_english(english_player: Client) -> None:
    started = english_player.post("/mesas/practicar/", {"mode": "4-reyes"})
    assert started.status_code == 302
    page = english_page(
        english_player,
        started["Location"],
        # The calls stay in Spanish, as on the English rules page.
        ["Us", "Them", "Paso", "Quiero", "No quiero", "Órdago", "Carry on", "Chat", "Send"],
        ["Nosotros", "Ellos", "Seguir", "Tus jugadas", "Escribe a la mesa", "Tantos más"],
    )
    assert "Well played!" in page.chunks  # a quick chat phrase
    # What the table's scripts write comes from the page too, in English.
    assert {"Your turn", "{n} more", "Changes {n}", "face-down card"} <= set(page.chunks)
