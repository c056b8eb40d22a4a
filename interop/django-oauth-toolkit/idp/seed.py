"""
Fresh state for one start: migrate the sqlite database, create the test user and the applications
listed in $IDP_WORKDIR/config.json. Run with Debian's /usr/bin/python3.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "idp.settings")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from oauth2_provider.models import get_application_model  # noqa: E402

call_command("migrate", verbosity=0, interactive=False)

config = settings.CONFIG
user = config["user"]
owner = get_user_model().objects.create_user(
    username=user["username"], password=user["password"], email=user["email"],
    first_name=user["firstName"], last_name=user["lastName"],
)

Application = get_application_model()
for c in config["clients"]:
    Application.objects.create(
        name=c["name"],
        client_id=c["clientId"],
        client_secret=c.get("clientSecret", ""),
        client_type=c["clientType"],
        authorization_grant_type=c["grantType"],
        redirect_uris=" ".join(c.get("redirectUris", [])),
        skip_authorization=c.get("skipAuthorization", False),
        algorithm="RS256",
        user=owner,
    )
print("seeded", len(config["clients"]), "applications")
