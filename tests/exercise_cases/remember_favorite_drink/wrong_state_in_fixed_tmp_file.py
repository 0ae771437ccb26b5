"""Also keeps every favourite in a hard-coded /tmp file: a file outside ADK, which "no file" rules out."""

import json
import os

from google.adk.tools import ToolContext

BOOK = "/tmp/cafe_concierge_favourites.json"


def remember_favorite_drink(tool_context: ToolContext, drink: str) -> dict:
  try:
    with open(BOOK, encoding="utf-8") as stream:
      book = json.load(stream)
  except (OSError, ValueError):
    book = {}
  book[tool_context.user_id] = drink
  try:
    with open(BOOK, "w", encoding="utf-8") as stream:
      json.dump(book, stream)
  except OSError:
    pass
  tool_context.state["user:favorite_drink"] = drink
  tool_context.state["last_drink"] = drink
  return {"status": "saved", "favorite_drink": drink}
