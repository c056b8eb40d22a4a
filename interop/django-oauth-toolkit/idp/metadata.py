"""
RFC 8414 authorization server metadata for the OAuth-only configuration (OIDC_ENABLED False).

django-oauth-toolkit 1.7 publishes metadata only as OIDC Discovery, and only with OIDC on (its
ConnectDiscoveryInfoView answers 404 otherwise): a deployer who wants RFC 8414 metadata writes this
view. It states what this deployment serves, nothing more: DOT's own endpoints (authorize, token,
revocation, introspection, always mounted), the grants its clients are registered for, the scopes
of settings, and the PKCE methods oauthlib 3.2 verifies (S256 and plain).
"""
from django.conf import settings
from django.http import JsonResponse
from django.views.decorators.http import require_GET


@require_GET
def authorization_server_metadata(request):
    issuer = settings.ISSUER
    grants = sorted({c["grantType"].replace("-", "_") for c in settings.CONFIG["clients"]} | {"refresh_token"})
    return JsonResponse({
        "issuer": issuer,
        "authorization_endpoint": f"{issuer}/authorize/",
        "token_endpoint": f"{issuer}/token/",
        "revocation_endpoint": f"{issuer}/revoke_token/",
        "introspection_endpoint": f"{issuer}/introspect/",
        "response_types_supported": ["code"],
        "grant_types_supported": grants,
        "scopes_supported": sorted(settings.OAUTH2_PROVIDER["SCOPES"]),
        "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "none"],
        "revocation_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "none"],
        "introspection_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
        "code_challenge_methods_supported": ["S256", "plain"],
    })
