"""Celery tasks of the accounts app."""

from celery import shared_task

from . import addresses


@shared_task(name="accounts.expire_emails")
def expire_emails() -> int:
    """Forget the addresses nobody confirmed in time (accounts.addresses)."""
    return addresses.expire()
