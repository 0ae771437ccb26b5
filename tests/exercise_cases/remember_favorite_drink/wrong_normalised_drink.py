""""Cleans up" the drink (title case): what is stored is not what the customer said."""

LOSES = ("favorite_follows_the_customer", "last_drink_in_each_session")


def remember_favorite_drink(tool_context, drink: str) -> dict:
  tidy = drink.strip().title()
  tool_context.state["user:favorite_drink"] = tidy
  tool_context.state["last_drink"] = tidy
  return {"status": "saved", "favorite_drink": tidy}
