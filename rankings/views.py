from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def leaderboard(request: HttpRequest) -> HttpResponse:
    return render(request, "rankings/leaderboard.html", {})
