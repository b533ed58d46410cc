from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def lobby(request: HttpRequest) -> HttpResponse:
    return render(request, "games/lobby.html", {})


def create_table(request: HttpRequest) -> HttpResponse:
    raise NotImplementedError


def table_page(request: HttpRequest, table_id: int) -> HttpResponse:
    raise NotImplementedError


def game_record(request: HttpRequest, table_id: int) -> HttpResponse:
    raise NotImplementedError
