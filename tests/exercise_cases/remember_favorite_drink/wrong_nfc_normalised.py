"""Normalises the drink to Unicode NFC: a decomposed "café" is stored as other characters."""

import unicodedata

LOSES = ("favorite_follows_the_customer", "last_drink_in_each_session")


def remember_favorite_drink(tool_context, drink: str) -> dict:
  drink = unicodedata.normalize("NFC", drink)
  tool_context.state["user:favorite_drink"] = drink
  tool_context.state["last_drink"] = drink
  return {"status": "saved", "favorite_drink": drink}
