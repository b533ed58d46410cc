"""The site's own deck: the generated SVG files and the `cards` template library."""

from __future__ import annotations

import importlib.util
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from django.template import Context, Template, TemplateSyntaxError
from django.templatetags.static import static
from django.utils import translation

from games.templatetags import cards
from games.templatetags.cards import CARD_CODES, UnknownCardError, card_name

ROOT = Path(__file__).resolve().parents[2]
CARDS_DIR = ROOT / "static" / "cards"
SVG_NS = "http://www.w3.org/2000/svg"
XLINK_HREF = "{http://www.w3.org/1999/xlink}href"
ALL_FILES = [*CARD_CODES, "back"]


def render(source: str, **context: object) -> str:
    return Template("{% load cards %}" + source).render(Context(context))


# --- the SVG files ----------------------------------------------------------------------------


def test_card_codes_are_the_forty_cards_of_the_spanish_deck_suit_by_suit() -> None:
    assert len(CARD_CODES) == 40
    assert len(set(CARD_CODES)) == 40
    assert CARD_CODES[:10] == ("1o", "2o", "3o", "4o", "5o", "6o", "7o", "10o", "11o", "12o")
    assert CARD_CODES[-1] == "12b"
    assert {code[-1] for code in CARD_CODES} == {"o", "c", "e", "b"}
    assert not any(code.startswith(("8", "9")) for code in CARD_CODES)


def test_every_card_and_the_back_has_an_svg_file() -> None:
    expected = {f"{name}.svg" for name in ALL_FILES}
    present = {path.name for path in CARDS_DIR.glob("*.svg")}
    assert expected <= present


@pytest.mark.parametrize("name", ALL_FILES)
def test_each_svg_is_small_self_contained_svg_without_scripts(name: str) -> None:
    path = CARDS_DIR / f"{name}.svg"
    data = path.read_bytes()
    assert len(data) < 12 * 1024

    root = ET.fromstring(data)
    assert root.tag == f"{{{SVG_NS}}}svg"
    assert root.get("viewBox") == "0 0 200 300"
    for element in root.iter():
        local = element.tag.rsplit("}", 1)[-1].lower()
        assert element.tag.startswith(f"{{{SVG_NS}}}"), element.tag
        assert local not in {"script", "foreignobject", "image", "iframe"}
        for attribute, value in element.attrib.items():
            assert not attribute.lower().startswith("on"), attribute
            if attribute in {"href", XLINK_HREF}:
                assert value.startswith("#"), value
            if "url(" in value:
                assert "url(#" in value, value

    text = data.decode()
    assert "<script" not in text.lower()
    assert "http://" not in text.replace(SVG_NS, "")
    assert "https://" not in text
    assert "@import" not in text


def test_face_cards_show_their_rank_number_in_the_corner() -> None:
    for code in ("10o", "11c", "12e", "7b", "1o"):
        root = ET.fromstring((CARDS_DIR / f"{code}.svg").read_bytes())
        texts = [el.text for el in root.iter(f"{{{SVG_NS}}}text")]
        assert texts.count(code[:-1]) == 2  # top-left and, upside down, bottom-right


def test_the_generator_reproduces_the_committed_files(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("make_cards", ROOT / "scripts" / "make_cards.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)

    assert module.main(["make_cards.py", str(tmp_path)]) == 0

    generated = sorted(path.name for path in tmp_path.iterdir())
    assert generated == sorted(f"{name}.svg" for name in ALL_FILES)
    for name in generated:
        assert (tmp_path / name).read_bytes() == (CARDS_DIR / name).read_bytes(), name


# --- card_name --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "spanish", "english"),
    [
        ("12o", "rey de oros", "king of coins"),
        ("1b", "as de bastos", "ace of clubs"),
        ("10c", "sota de copas", "jack of cups"),
        ("11e", "caballo de espadas", "knight of swords"),
        ("7o", "siete de oros", "seven of coins"),
        ("2c", "dos de copas", "two of cups"),
        ("3e", "tres de espadas", "three of swords"),
    ],
)
def test_card_name_follows_the_active_language(code: str, spanish: str, english: str) -> None:
    with translation.override("es"):
        assert card_name(code) == spanish
    with translation.override("en"):
        assert card_name(code) == english


def test_card_name_takes_an_explicit_language_over_the_active_one() -> None:
    with translation.override("es"):
        assert card_name("12o", "en") == "king of coins"
        assert card_name("12o", lang="en-gb") == "king of coins"
    with translation.override("en"):
        assert card_name("12o", "es") == "rey de oros"


def test_card_name_falls_back_to_spanish_for_other_languages() -> None:
    assert card_name("5b", "fr") == "cinco de bastos"
    with translation.override(None):
        assert card_name("5b") == "cinco de bastos"


def test_card_name_is_also_a_template_filter() -> None:
    with translation.override("es"):
        assert render("{{ code|card_name }}", code="11o") == "caballo de oros"
    with translation.override("en"):
        assert render("{{ code|card_name }}", code="11o") == "knight of coins"
        assert render('{{ "1c"|card_name:"es" }}') == "as de copas"


@pytest.mark.parametrize(
    "bad", ["13o", "8c", "9e", "0b", "1x", "12", "o", "", " 12o", "12O", None, 12]
)
def test_card_name_refuses_unknown_codes(bad: object) -> None:
    with pytest.raises(UnknownCardError, match="Unknown card code"):
        card_name(bad)  # type: ignore[arg-type]


def test_the_unknown_card_error_is_both_a_template_error_and_a_value_error() -> None:
    assert issubclass(UnknownCardError, TemplateSyntaxError)
    assert issubclass(UnknownCardError, ValueError)


# --- {% card %} and {% card_back %} -------------------------------------------------------------


def test_card_tag_renders_an_img_with_the_static_url_and_the_spanish_name() -> None:
    with translation.override("es"):
        html = render('{% card "12o" %}')
    assert html == (
        f'<img class="card-img" src="{static("cards/12o.svg")}" alt="rey de oros" '
        'width="72" height="108">'
    )
    assert static("cards/12o.svg").endswith(".svg")


def test_card_tag_uses_the_english_name_when_english_is_active() -> None:
    with translation.override("en"):
        html = render("{% card code %}", code="1b")
    assert 'alt="ace of clubs"' in html
    assert f'src="{static("cards/1b.svg")}"' in html


def test_card_tag_small_size_adds_the_small_class() -> None:
    with translation.override("es"):
        html = render('{% card "10c" size="small" %}')
    assert 'class="card-img small"' in html
    assert 'width="48" height="72"' in html
    assert 'alt="sota de copas"' in html


def test_card_tag_escapes_the_alt_text(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(cards.RANK_NAMES["es"], 12, 'rey "<b>" & co')
    with translation.override("es"):
        html = render('{% card "12o" %}')
    assert 'alt="rey &quot;&lt;b&gt;&quot; &amp; co de oros"' in html
    assert "<b>" not in html


@pytest.mark.parametrize("bad", ["13o", '"><script>alert(1)</script>', "", "back"])
def test_card_tag_raises_a_clear_error_for_unknown_codes(bad: str) -> None:
    with pytest.raises(TemplateSyntaxError, match="Unknown card code"):
        render("{% card code %}", code=bad)


def test_card_tag_raises_for_a_missing_variable() -> None:
    with pytest.raises(TemplateSyntaxError, match="Unknown card code"):
        render("{% card missing %}")


def test_card_tag_refuses_unknown_sizes() -> None:
    with pytest.raises(TemplateSyntaxError, match="Unknown card size"):
        render('{% card "12o" size="huge" %}')


def test_card_back_renders_the_back_with_a_translated_alt() -> None:
    with translation.override("es"):
        html = render("{% card_back %}")
    assert html == (
        f'<img class="card-img" src="{static("cards/back.svg")}" alt="carta boca abajo" '
        'width="72" height="108">'
    )
    with translation.override("en"):
        html = render('{% card_back size="small" %}')
    assert 'alt="face-down card"' in html
    assert 'class="card-img small"' in html
