"""Exercise (lesson 1, sessions, events and state): a tool that remembers at the right scope.

The cafe concierge should remember each customer's favourite drink across visits, and the
drink of the current conversation only within it. Write the tool

    def remember_favorite_drink(tool_context: ToolContext, drink: str) -> dict

that ADK calls when a customer says "my favorite drink is ...". It must:

1. store the drink as the customer's favourite under the key ``user:favorite_drink``, so that
   every later session of the same user sees it, and no other user does;
2. store it as ``last_drink`` in the current session's state only (no prefix), so that a new
   conversation starts without it;
3. write through ``tool_context.state`` (ADK turns those writes into the event's
   ``state_delta``, which is what the session service stores);
4. return a dict confirming what was saved (the model reads it to answer), e.g.
   ``{"status": "saved", "favorite_drink": drink}``.

Check yourself in a notebook:

    from adkcourse.grade import run_exercise_checks
    report = await run_exercise_checks("remember_favorite_drink", remember_favorite_drink)
    report   # score, what happened, and every check's feedback
"""

from __future__ import annotations

from google.adk.tools import ToolContext


def remember_favorite_drink(tool_context: ToolContext, drink: str) -> dict:
  """Remember the customer's favourite drink (for all their visits) and this visit's drink.

  Args:
    drink: the drink the customer named, e.g. "oat milk latte".
  """
  ### HINT: tool_context.state works like a dict; the key's prefix chooses where the value lives:
  ### HINT: "user:..." for every session of this user, no prefix for this session only.
  ### BEGIN SOLUTION
  tool_context.state["user:favorite_drink"] = drink
  tool_context.state["last_drink"] = drink
  return {"status": "saved", "favorite_drink": drink}
  ### END SOLUTION
