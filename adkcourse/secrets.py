"""Masking secrets before anything is displayed: URLs with passwords, API keys."""

from __future__ import annotations

import re

_API_KEY = re.compile(r"AIza[0-9A-Za-z_\-]{20,}")
_URL_TOKEN = re.compile(r"""[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s'"<>]+""")
_PASSWORD_PARAMETER = re.compile(r"(?i)([?&]password=)[^&\s]+")


def mask_url(url: str) -> str:
  """``postgresql+asyncpg://user:secret@host/db`` -> ``postgresql+asyncpg://user:***@host/db``.

  The password is everything between the first ``:`` of the user part and the *last* ``@``,
  so passwords holding ``/``, ``@`` or ``:`` (which drivers accept unencoded) are masked
  whole. A ``password=`` query parameter is masked too. URLs without a password come back
  unchanged.
  """
  scheme, sep, rest = url.partition("://")
  if sep and "@" in rest:
    userinfo, _, host_part = rest.rpartition("@")
    user, colon, password = userinfo.partition(":")
    if colon and password:
      url = f"{scheme}://{user}:***@{host_part}"
  return _PASSWORD_PARAMETER.sub(r"\1***", url)


def mask_secrets(text: str) -> str:
  """Mask every URL password and Google API key in free text (logs, error messages)."""
  return _API_KEY.sub("AIza***", _URL_TOKEN.sub(lambda m: mask_url(m.group(0)), text))
