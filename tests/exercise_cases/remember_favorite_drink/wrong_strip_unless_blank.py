"""Strips the drink unless nothing would be left: blanks are kept, edged drinks lose their ends."""


def remember_favorite_drink(tool_context, drink: str) -> dict:
  tidy = drink.strip() or drink
  tool_context.state.update({"user:favorite_drink": tidy, "last_drink": tidy})
  return {"status": "saved", "favorite_drink": tidy}
