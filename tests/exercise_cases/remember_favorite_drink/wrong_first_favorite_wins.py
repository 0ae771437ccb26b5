"""Sets the favourite only when none is stored yet: a customer can never change their mind."""

LOSES = ("favorite_follows_the_customer",)


def remember_favorite_drink(tool_context, drink: str) -> dict:
  if tool_context.state.get("user:favorite_drink") is None:
    tool_context.state["user:favorite_drink"] = drink
  tool_context.state["last_drink"] = drink
  return {"status": "saved", "favorite_drink": tool_context.state["user:favorite_drink"]}
