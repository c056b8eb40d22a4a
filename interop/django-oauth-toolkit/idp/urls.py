from django.conf import settings
from django.contrib.auth.views import LoginView
from django.urls import include, path

from idp.metadata import authorization_server_metadata

urlpatterns = [
    path("o/", include("oauth2_provider.urls", namespace="oauth2_provider")),
    path("accounts/login/", LoginView.as_view(), name="login"),
]
if not settings.OIDC:
    # RFC 8414 §3: the well-known suffix goes between the host and the issuer's path (/o).
    urlpatterns.append(path(".well-known/oauth-authorization-server/o", authorization_server_metadata))
