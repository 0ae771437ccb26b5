"""Writes into the session object's dict, not through tool_context.state: nothing is stored."""

LOSES = ("favorite_follows_the_customer", "last_drink_in_each_session")


def remember_favorite_drink(tool_context, drink: str) -> dict:
  tool_context.session.state["user:favorite_drink"] = drink
  tool_context.session.state["last_drink"] = drink
  return {"status": "saved", "favorite_drink": drink}
