"""Puts the user id in the key (user:<id>:favorite_drink): the prefix already scopes it to them."""

LOSES = ("favorite_follows_the_customer", "last_drink_stays_in_its_session")


def remember_favorite_drink(tool_context, drink: str) -> dict:
  tool_context.state[f"user:{tool_context.user_id}:favorite_drink"] = drink
  tool_context.state["last_drink"] = drink
  return {"status": "saved", "favorite_drink": drink}
