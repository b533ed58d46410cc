from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ModerationConfig(AppConfig):
    """The top layer: reports, the audit log and the moderators' measures.

    It extends the accounts and games admins (moderation/admin/) and routes the report form;
    accounts and games never import it.
    """

    name = "moderation"
    verbose_name = _("Moderación")
