"""A helper writes each (scope, key) pair; the answer comes from a module constant, copied."""

SAVED = {"status": "saved"}
KEYS = (("user:", "favorite_drink"), ("", "last_drink"))


def _store(state, drink: str) -> None:
  for prefix, key in KEYS:
    state[prefix + key] = drink


def remember_favorite_drink(tool_context, drink: str) -> dict:
  _store(tool_context.state, drink)
  return {**SAVED, "favorite_drink": drink}
