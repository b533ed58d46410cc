from django.contrib.auth.backends import ModelBackend


class ActiveAccountBackend(ModelBackend):
    """The model backend that also refuses banned accounts."""

    def user_can_authenticate(self, user: object) -> bool:
        return super().user_can_authenticate(user) and not getattr(user, "is_banned", False)
