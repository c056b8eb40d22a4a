"""Per-client scopes: a client may ask only for the scopes it was registered with (settings.CLIENT_SCOPES)."""
from django.conf import settings

from oauth2_provider.scopes import SettingsScopes


class PerClientScopes(SettingsScopes):
    def get_available_scopes(self, application=None, request=None, *args, **kwargs):
        if application is None:
            return super().get_available_scopes(application, request, *args, **kwargs)
        return settings.CLIENT_SCOPES.get(application.client_id, [])

    def get_default_scopes(self, application=None, request=None, *args, **kwargs):
        available = self.get_available_scopes(application, request)
        if "openid" in available:
            return ["openid"]
        return list(available)
