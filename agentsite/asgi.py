"""ASGI entry point: HTTP through Django, websockets through Channels (served by daphne)."""

import gc
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "agentsite.settings")
os.environ.setdefault("OMP_NUM_THREADS", "1")
django_asgi_app = get_asgi_application()  # set up Django before importing consumers

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from channels.sessions import SessionMiddlewareStack  # noqa: E402

from agentsite.routing import websocket_urlpatterns  # noqa: E402

# Sessions but not AuthMiddlewareStack: its user lookup runs before the handshake is accepted, on Channels'
# single sync thread, and a burst of connects outlasted daphne's handshake timeout. The chat consumer
# authenticates the session itself after accepting (chat/consumers.py); the session here is only its key
# from the cookie, loaded by nobody until then.
application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": AllowedHostsOriginValidator(SessionMiddlewareStack(URLRouter(websocket_urlpatterns))),
    }
)

# What start-up built (Django, the apps, models, URL resolvers, translations) lives as long as the process:
# frozen, the cyclic collector no longer walks it on every full collection, each of which held the GIL,
# and so stalled every socket on the event loop, for as long as the walk took (docs/bench.md).
gc.collect()
gc.freeze()
