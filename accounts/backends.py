from django.contrib.auth.backends import ModelBackend


class ActiveAccountBackend(ModelBackend):
    """The model backend that also refuses banned accounts, and bot accounts: a program signs
    in with its tokens only (`accounts.bot_accounts`), never with a password or a session."""

    def user_can_authenticate(self, user: object) -> bool:
        return (
            super().user_can_authenticate(user)
            and not getattr(user, "is_banned", False)
            and getattr(user, "bot_owner_id", None) is None
        )
