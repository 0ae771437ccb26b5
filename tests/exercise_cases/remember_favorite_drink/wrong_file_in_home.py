"""Also keeps each customer's favourite in a JSON file in the home folder: "no file" broken."""

import json
from pathlib import Path


def remember_favorite_drink(tool_context, drink: str) -> dict:
  tool_context.state["user:favorite_drink"] = drink
  tool_context.state["last_drink"] = drink
  book = Path.home() / ".cafe" / "favourites.json"
  try:
    book.parent.mkdir(parents=True, exist_ok=True)
    saved = json.loads(book.read_text()) if book.exists() else {}
    saved[tool_context.user_id] = drink
    book.write_text(json.dumps(saved))
  except OSError:
    pass
  return {"status": "saved", "favorite_drink": drink}
