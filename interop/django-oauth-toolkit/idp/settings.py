"""
A minimal Django 3.2 project serving django-oauth-toolkit 1.7 as an OpenID Connect provider, or
(config "oidc": false) as a plain OAuth 2.0 authorization server, configured as a careful deployer would. Everything instance-specific (port, keys, secrets,
clients) comes from $IDP_WORKDIR/config.json, written fresh by interop/django-oauth-toolkit/index.ts.
"""
import json
import os
from pathlib import Path

WORKDIR = Path(os.environ["IDP_WORKDIR"])
CONFIG = json.loads((WORKDIR / "config.json").read_text())

SECRET_KEY = CONFIG["secretKey"]
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1"]
ROOT_URLCONF = "idp.urls"
WSGI_APPLICATION = "idp.wsgi.application"
DEFAULT_AUTO_FIELD = "django.db.models.AutoField"
USE_TZ = True

INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.staticfiles",
    "oauth2_provider",
    "idp",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "no-referrer"
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
            ],
        },
    },
]

DATABASES = {
    "default": {
        "ENGINE": "idp.sqlite_immediate",
        "NAME": str(WORKDIR / "db.sqlite3"),
        "OPTIONS": {"timeout": 30},
    }
}

STATIC_URL = "/static/"
LOGIN_URL = "/accounts/login/"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"stderr": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["stderr"], "level": "WARNING"},
}

# Each client's scopes, by client_id (idp.scopes.PerClientScopes): a client may ask only for these.
CLIENT_SCOPES = {c["clientId"]: c["scopes"] for c in CONFIG["clients"]}

OIDC = CONFIG.get("oidc", True)
# The issuer (RFC 8414 §2), pinned, never built from the request's Host header.
ISSUER = CONFIG["issuer"]

OAUTH2_PROVIDER = {
    "OIDC_ENABLED": OIDC,
    "PKCE_REQUIRED": True,
    "ROTATE_REFRESH_TOKEN": True,
    "REFRESH_TOKEN_GRACE_PERIOD_SECONDS": 0,
    "AUTHORIZATION_CODE_EXPIRE_SECONDS": 60,
    "ACCESS_TOKEN_EXPIRE_SECONDS": 3600,
    "REFRESH_TOKEN_EXPIRE_SECONDS": 30 * 24 * 3600,
    "REQUEST_APPROVAL_PROMPT": "force",
    "SCOPES": {
        "openid": "OpenID Connect",
        "profile": "Your name",
        "email": "Your e-mail address",
        "offline_access": "Access while you are away",
        "api:read": "Read the API",
        "api:write": "Write the API",
    },
    "DEFAULT_SCOPES": ["openid"],
    "SCOPES_BACKEND_CLASS": "idp.scopes.PerClientScopes",
}
if OIDC:
    OAUTH2_PROVIDER.update({
        "OIDC_ISS_ENDPOINT": ISSUER,
        "OIDC_RSA_PRIVATE_KEY": (WORKDIR / "oidc-key.pem").read_text(),
        "OIDC_RESPONSE_TYPES_SUPPORTED": ["code"],
        "ID_TOKEN_EXPIRE_SECONDS": 3600,
        "OAUTH2_VALIDATOR_CLASS": "idp.validator.Validator",
    })
else:
    # No openid scope at all: an OAuth 2.0 authorization server only.
    del OAUTH2_PROVIDER["SCOPES"]["openid"]
    OAUTH2_PROVIDER["DEFAULT_SCOPES"] = ["profile"]
