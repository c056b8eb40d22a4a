"""The user's claims, released by scope (OIDC Core §5.4): profile → name, email → email."""
from oauth2_provider.oauth2_validators import OAuth2Validator


class Validator(OAuth2Validator):
    def get_additional_claims(self, request):
        user = request.user
        scopes = set(request.scopes or [])
        # At userinfo, request.scopes holds only what the endpoint requires (openid): the access
        # token's own scope says what the user granted.
        access_token = getattr(request, "access_token", None)
        if access_token is not None and getattr(access_token, "scope", None):
            scopes |= set(access_token.scope.split())
        claims = {}
        if "profile" in scopes:
            claims.update(
                name=user.get_full_name(),
                given_name=user.first_name,
                family_name=user.last_name,
                preferred_username=user.username,
            )
        if "email" in scopes:
            claims.update(email=user.email, email_verified=True)
        return claims
