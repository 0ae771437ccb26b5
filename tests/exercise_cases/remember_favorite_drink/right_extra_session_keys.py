"""Extra keys of the conversation's own (a counter, a temp: note) and a string reply: allowed."""


def remember_favorite_drink(tool_context, drink: str) -> dict:
  tool_context.state["user:favorite_drink"] = drink
  tool_context.state["last_drink"] = drink
  tool_context.state["drinks_named_here"] = tool_context.state.get("drinks_named_here", 0) + 1
  tool_context.state["temp:just_saved"] = True
  return {"result": f"I'll remember that your favourite is {drink}."}
