"""The favourite without a prefix: it stays in the conversation where it was named."""

LOSES = ("favorite_follows_the_customer",)


def remember_favorite_drink(tool_context, drink: str) -> dict:
  tool_context.state["favorite_drink"] = drink
  tool_context.state["last_drink"] = drink
  return {"status": "saved", "favorite_drink": drink}
