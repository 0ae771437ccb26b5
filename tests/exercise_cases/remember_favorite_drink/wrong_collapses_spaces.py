"""Tidies the drink's whitespace (" ".join(drink.split())): "flat  white" is not what was said."""

LOSES = ("favorite_follows_the_customer", "last_drink_in_each_session")


def remember_favorite_drink(tool_context, drink: str) -> dict:
  tidy = " ".join(drink.split())
  tool_context.state["user:favorite_drink"] = tidy
  tool_context.state["last_drink"] = tidy
  return {"status": "saved", "favorite_drink": tidy}
