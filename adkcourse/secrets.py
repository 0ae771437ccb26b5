"""Masking secrets before anything is displayed: URLs with passwords, API keys."""

from __future__ import annotations

import re

_URL_PASSWORD = re.compile(r"(?P<head>[a-zA-Z][a-zA-Z0-9+.\-]*://[^:/?#@\s]*:)(?P<pw>[^@/\s]+)(?P<at>@)")
_API_KEY = re.compile(r"AIza[0-9A-Za-z_\-]{20,}")


def mask_url(url: str) -> str:
  """``postgresql+asyncpg://user:secret@host/db`` -> ``postgresql+asyncpg://user:***@host/db``.

  Also masks a ``password=`` query parameter. URLs without a password come back unchanged.
  """
  masked = _URL_PASSWORD.sub(lambda m: f"{m['head']}***{m['at']}", url)
  return re.sub(r"(?i)(password=)[^&\s]+", r"\1***", masked)


def mask_secrets(text: str) -> str:
  """Mask every URL password and Google API key in free text (logs, error messages)."""
  return _API_KEY.sub("AIza***", mask_url(text))
