"""Also counts the drinks named in the conversation (a third key): the contract allows two keys.

It used to be a right answer ("extra keys of the conversation are fine"); the contract now says
the tool writes the two keys and nothing else, and returns exactly the contract's dict (this
one answered in a sentence). Its temp: note is allowed: ADK never stores it."""

LOSES = ("last_drink_stays_in_its_session", "returns_confirmation")


def remember_favorite_drink(tool_context, drink: str) -> dict:
  tool_context.state["user:favorite_drink"] = drink
  tool_context.state["last_drink"] = drink
  tool_context.state["drinks_named_here"] = tool_context.state.get("drinks_named_here", 0) + 1
  tool_context.state["temp:just_saved"] = True
  return {"result": f"I'll remember that your favourite is {drink}."}
