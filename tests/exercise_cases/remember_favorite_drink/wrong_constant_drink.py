"""Ignores `drink` and always stores the docstring's example, "oat milk latte"."""

LOSES = ("favorite_follows_the_customer", "last_drink_in_each_session")


def remember_favorite_drink(tool_context, drink: str) -> dict:
  tool_context.state["user:favorite_drink"] = "oat milk latte"
  tool_context.state["last_drink"] = "oat milk latte"
  return {"status": "saved", "favorite_drink": "oat milk latte", "asked_for": drink}
