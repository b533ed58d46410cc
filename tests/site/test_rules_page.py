"""The rules page /reglas/: Spanish by default, English on request, tables and card examples."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from django.conf import settings
from django.contrib.staticfiles import finders
from django.templatetags.static import static
from django.test import Client

SECTION_IDS = [
    "mesa",
    "baraja",
    "partida",
    "mano",
    "lances",
    "grande",
    "chica",
    "pares",
    "juego",
    "punto",
    "lleva",
    "envites",
    "deje",
    "ordago",
    "recuento",
    "plataforma",
    "glosario",
]

SPANISH_HEADINGS = [
    "Reglas del mus",
    "1. La mesa y las parejas",
    "2. La baraja: cuatro u ocho reyes",
    "3. La partida a 40",
    "4. Cada mano: reparto, mus y descartes",
    "5. Los cuatro lances",
    "Grande",
    "Chica",
    "Pares",
    "Juego",
    "Punto",
    "¿Lleva o no lleva?",
    "6. Envites",
    "7. No quiero: el deje",
    "8. El órdago",
    "9. El recuento y el final de la partida",
    "10. Normas de la plataforma",
]

ENGLISH_HEADINGS = [
    "Rules of Mus",
    "1. The table and the pairs",
    "2. The deck: four or eight kings",
    "3. The game to 40",
    "4. Each hand: deal, mus and discards",
    "5. The four lances",
    "6. Betting",
    "7. No quiero: the deje",
    "8. The órdago",
    "9. The recuento and the end of the game",
    "10. Platform rules",
]

JUEGO_ORDER = [["31", "3"], ["32", "2"], ["40", "2"], ["37", "2"]] + [
    [str(n), "2"] for n in (36, 35, 34, 33)
]


class Page(HTMLParser):
    """Collects what the tests look at: headings, ids, tables, images, links, inline code."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.headings: list[str] = []
        self.ids: list[str] = []
        self.tables: dict[str, list[list[str]]] = {}
        self.images: list[dict[str, str]] = []
        self.toc_links: list[str] = []
        self.stylesheets: list[str] = []
        self.inline_styles = 0
        self.inline_scripts = 0
        self.html_lang = ""
        self._heading: list[str] | None = None
        self._table: str | None = None
        self._in_tbody = False
        self._row: list[str] | None = None
        self._cell: list[str] | None = None
        self._in_toc = False
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if "id" in a:
            self.ids.append(a["id"])
        if "style" in a or any(k.startswith("on") for k in a):
            self.inline_styles += 1
        if tag == "html":
            self.html_lang = a.get("lang", "")
        elif tag == "script" and not a.get("src"):
            self.inline_scripts += 1
        elif tag == "style":
            self.inline_styles += 1
        elif tag == "link" and a.get("rel") == "stylesheet":
            self.stylesheets.append(a["href"])
        elif tag in {"h1", "h2", "h3"}:
            self._heading = []
        elif tag == "nav" and "toc" in a.get("class", "").split():
            self._in_toc = True
        elif tag == "a" and self._in_toc and a.get("href", "").startswith("#"):
            self.toc_links.append(a["href"][1:])
        elif tag == "img":
            self.images.append(a)
        elif tag == "table":
            classes = a.get("class", "").split()
            named = [c for c in classes if c.endswith("-table") and c != "rules-table"]
            self._table = named[0] if named else "table"
            self.tables[self._table] = []
        elif tag == "tbody":
            self._in_tbody = True
        elif tag == "tr" and self._in_tbody:
            self._row = []
        elif tag in {"td", "th"} and self._row is not None:
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in {"h1", "h2", "h3"} and self._heading is not None:
            self.headings.append(" ".join("".join(self._heading).split()))
            self._heading = None
        elif tag == "nav":
            self._in_toc = False
        elif tag in {"td", "th"} and self._cell is not None and self._row is not None:
            self._row.append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "tr" and self._row is not None and self._table:
            self.tables[self._table].append(self._row)
            self._row = None
        elif tag == "tbody":
            self._in_tbody = False
        elif tag == "table":
            self._table = None

    def handle_data(self, data: str) -> None:
        if self._heading is not None:
            self._heading.append(data)
        if self._cell is not None:
            self._cell.append(data)


def get_page(client: Client, **extra: str) -> Page:
    response = client.get("/reglas/", **extra)
    assert response.status_code == 200
    return Page(response.content.decode())


@pytest.mark.django_db
def test_rules_page_is_served_in_spanish_by_default(client: Client) -> None:
    page = get_page(client)
    assert page.html_lang == "es"
    for heading in SPANISH_HEADINGS:
        assert heading in page.headings, heading
    assert "Rules of Mus" not in page.headings


@pytest.mark.django_db
def test_rules_page_has_every_section_and_a_table_of_contents_pointing_at_them(
    client: Client,
) -> None:
    page = get_page(client)
    for section in SECTION_IDS:
        assert section in page.ids, section
    assert set(SECTION_IDS) <= set(page.toc_links)
    for target in page.toc_links:
        assert target in page.ids, target
    assert len(page.ids) == len(set(page.ids)), "duplicate ids"


@pytest.mark.django_db
def test_rules_page_lists_juego_order_with_its_tantos(client: Client) -> None:
    page = get_page(client)
    rows = page.tables["juego-table"]
    assert [row[1:] for row in rows] == JUEGO_ORDER
    assert [row[0] for row in rows][:3] == ["1.º", "2.º", "3.º"]


@pytest.mark.django_db
def test_rules_page_lists_pares_values(client: Client) -> None:
    page = get_page(client)
    rows = page.tables["pares-table"]
    assert [(row[0], row[-1]) for row in rows] == [("Par", "1"), ("Medias", "2"), ("Duples", "3")]


@pytest.mark.django_db
def test_rules_page_gives_the_deje_examples_of_the_rules(client: Client) -> None:
    page = get_page(client)
    rows = page.tables["deje-table"]
    assert [row[-1] for row in rows] == ["1", "2", "6"]
    assert rows[0][0] == "Envido 2"
    assert "5" in rows[1][0]
    assert "6" in rows[2][0] and "órdago" in rows[2][0]


@pytest.mark.django_db
def test_rules_page_draws_its_examples_with_the_site_cards_and_alt_text(client: Client) -> None:
    page = get_page(client)
    cards = [img for img in page.images if "card-img" in img.get("class", "").split()]
    assert len(cards) >= 40
    for img in cards:
        assert img["alt"], img
        assert img["src"].startswith(static("cards/").rstrip("/")), img
        name = img["src"].rsplit("/", 1)[-1]
        assert finders.find(f"cards/{name}"), name
    alts = {img["alt"] for img in cards}
    assert {"rey de oros", "as de bastos", "sota de copas", "caballo de espadas"} <= alts


@pytest.mark.django_db
def test_rules_page_loads_its_stylesheet_and_has_no_inline_styles_or_scripts(
    client: Client,
) -> None:
    page = get_page(client)
    assert static("css/rules.css") in page.stylesheets
    assert finders.find("css/rules.css")
    assert page.inline_styles == 0
    assert page.inline_scripts == 0


@pytest.mark.django_db
def test_rules_page_is_in_english_with_an_english_accept_language(client: Client) -> None:
    page = get_page(client, HTTP_ACCEPT_LANGUAGE="en")
    assert page.html_lang == "en"
    for heading in ENGLISH_HEADINGS:
        assert heading in page.headings, heading
    assert "Reglas del mus" not in page.headings
    assert [row[1:] for row in page.tables["juego-table"]] == JUEGO_ORDER
    assert [row[-1] for row in page.tables["pares-table"]] == ["1", "2", "3"]
    assert [row[-1] for row in page.tables["deje-table"]] == ["1", "2", "6"]
    for section in SECTION_IDS:
        assert section in page.ids, section
    alts = {img["alt"] for img in page.images if "card-img" in img.get("class", "")}
    assert {"king of coins", "ace of clubs", "jack of cups", "knight of swords"} <= alts
    assert "rey de oros" not in alts


@pytest.mark.django_db
def test_rules_page_is_in_english_with_the_language_cookie(client: Client) -> None:
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    page = get_page(client)
    assert page.html_lang == "en"
    assert "Rules of Mus" in page.headings
    assert "10. Platform rules" in page.headings


@pytest.mark.django_db
def test_rules_page_title_follows_the_language(client: Client) -> None:
    spanish = client.get("/reglas/").content.decode()
    english = client.get("/reglas/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "<title>Reglas · Barajamos</title>" in spanish
    assert "<title>Rules · Barajamos</title>" in english
