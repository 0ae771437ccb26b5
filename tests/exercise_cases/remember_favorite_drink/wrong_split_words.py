"""Also keeps the drink split into words under user:drink_words (a drink outlives its visit)."""

LOSES = ("last_drink_stays_in_its_session",)


def remember_favorite_drink(tool_context, drink: str) -> dict:
  tool_context.state["user:favorite_drink"] = drink
  tool_context.state["last_drink"] = drink
  tool_context.state["user:drink_words"] = drink.split()
  return {"status": "saved", "favorite_drink": drink}
