"""Also keeps the drink upper-cased under another user: key ("for the barista's screen")."""

LOSES = ("last_drink_stays_in_its_session",)


def remember_favorite_drink(tool_context, drink: str) -> dict:
  tool_context.state["user:favorite_drink"] = drink
  tool_context.state["last_drink"] = drink
  tool_context.state["user:favorite_drink_display"] = drink.upper()
  return {"status": "saved", "favorite_drink": drink}
