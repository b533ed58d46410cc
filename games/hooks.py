"""What games asks of the apps above it (they fill these from their `AppConfig.ready`): games never
imports them (layers: engine <- accounts <- games <- rankings <- tournaments <- moderation)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class RatingLabel:
    """A player's rating in a mode as people see it: «1523», or «1523?» while provisional."""

    rating: int
    provisional: bool

    def __str__(self) -> str:
        return f"{self.rating}?" if self.provisional else str(self.rating)


#: (player id, mode) pairs -> their rating labels (pairs nobody has rated may be left out).
RatingsProvider = Callable[[Iterable[tuple[int, str]]], Mapping[tuple[int, str], RatingLabel]]

_ratings: list[RatingsProvider] = []


def provide_ratings(provider: RatingsProvider) -> None:
    """Register the source of ratings shown in the lobby and at the tables (the ladder app)."""
    _ratings[:] = [provider]


def ratings(pairs: Iterable[tuple[int, str]]) -> Mapping[tuple[int, str], RatingLabel]:
    """The labels of `pairs`, in one call (the ladder reads them in one query)."""
    return _ratings[0](pairs) if _ratings else {}


#: A check before a player sits at a table (or creates one): raises `games.services.ServiceError`
#: when a higher app holds the player elsewhere (a tournament whose table will come to them).
SitCheck = Callable[[Any], None]

_sit_checks: list[SitCheck] = []


def provide_sit_check(check: SitCheck) -> None:
    """Register a check run before a player takes a seat or creates a table (practice aside)."""
    if check not in _sit_checks:
        _sit_checks.append(check)


def check_may_sit(user: Any) -> None:
    """Run every registered check for `user`; the first refusal is raised."""
    for check in _sit_checks:
        check(user)


@dataclass(frozen=True, slots=True)
class TableLink:
    """A link a higher app shows at the top of a table's page (a tournament's game: back to
    the tournament)."""

    text: str
    url: str


#: table -> the links to show on its page.
TableLinks = Callable[[Any], Iterable[TableLink]]

_table_links: list[TableLinks] = []


def provide_table_links(provider: TableLinks) -> None:
    if provider not in _table_links:
        _table_links.append(provider)


def table_links(table: Any) -> list[TableLink]:
    return [link for provider in _table_links for link in provider(table)]


#: table ids -> a short label for each table a higher app ran (a tournament's game: «Torneo de
#: otoño · Ronda 2»), shown in lists of games; one call (one query) for a whole page of them.
TableTags = Callable[[Sequence[int]], Mapping[int, TableLink]]

_table_tags: list[TableTags] = []


def provide_table_tags(provider: TableTags) -> None:
    if provider not in _table_tags:
        _table_tags.append(provider)


def table_tags(table_ids: Sequence[int]) -> dict[int, TableLink]:
    """The labels of the tables among `table_ids` that have one."""
    tags: dict[int, TableLink] = {}
    if table_ids:
        for provider in _table_tags:
            tags.update(provider(table_ids))
    return tags
