"""Django's sessions read from the Redis cache and written through to PostgreSQL, outliving a Redis outage:
Django's ``cached_db`` store, except that an unreachable cache never fails a request and a session stays
cached at most ``SESSION_CACHE_SECONDS``. The chat socket checks the login behind every frame through this
store, so that check is one Redis read. See docs/operations.md.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.contrib.sessions.backends import cached_db

if TYPE_CHECKING:
    from django.contrib.sessions.base_session import AbstractBaseSession
    from django.core.cache.backends.base import BaseCache

logger = logging.getLogger(__name__)


class SessionStore(cached_db.SessionStore):
    if TYPE_CHECKING:  # Django's private members this store builds on, which django-stubs leaves out
        _cache: BaseCache

        def _get_session_from_db(self) -> AbstractBaseSession | None: ...

        @property
        def _session(self) -> dict[str, Any]: ...

    def load(self) -> dict[str, Any]:
        data: dict[str, Any] | None
        try:
            data = self._cache.get(self.cache_key)
        except Exception:
            logger.warning("session cache unavailable: session read from the database")
            data = None
        if data is not None:
            return data
        row = self._get_session_from_db()
        if not row:
            return {}
        data = self.decode(row.session_data)
        self._cache_put(data, self.get_expiry_age(expiry=row.expire_date))
        return data

    def exists(self, session_key: str) -> bool:
        try:
            if session_key and (self.cache_key_prefix + session_key) in self._cache:
                return True
        except Exception:
            logger.warning("session cache unavailable: existence checked in the database")
        return super(cached_db.SessionStore, self).exists(session_key)

    def save(self, must_create: bool = False) -> None:
        super(cached_db.SessionStore, self).save(must_create)
        self._cache_put(self._session, self.get_expiry_age())

    def delete(self, session_key: str | None = None) -> None:
        super(cached_db.SessionStore, self).delete(session_key)
        session_key = session_key or self.session_key
        if session_key is None:
            return
        try:
            self._cache.delete(self.cache_key_prefix + session_key)
        except Exception:  # the database row is gone; a cached copy lives at most SESSION_CACHE_SECONDS
            logger.warning(
                "session cache unavailable: a deleted session stays cached for up to %s s",
                settings.SESSION_CACHE_SECONDS,
            )

    def _cache_put(self, data: dict[str, Any], age: int) -> None:
        try:
            self._cache.set(self.cache_key, data, min(age, settings.SESSION_CACHE_SECONDS))
        except Exception:
            logger.warning("session cache unavailable: session kept in the database only")
