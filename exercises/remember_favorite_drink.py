"""Exercise (lesson 1, sessions, events and state): a tool that remembers at the right scope.

The cafe concierge should remember each customer's favourite drink across visits, and the
drink of the current conversation only within it. Write the tool

    def remember_favorite_drink(tool_context: ToolContext, drink: str) -> dict

that ADK calls when a customer says "my favorite drink is ...". Each time it is called, even
when a key already holds ``drink``:

1. ``favorite_drink`` becomes ``drink``, and every later conversation of **this customer**
   sees it in its state; no other customer does, not even one whose id starts the same way,
   differs only by case or looks the same, and not the same customer in another app;
2. ``last_drink`` becomes ``drink`` in **this conversation only**: a customer who names a
   new favourite in another conversation leaves this one's ``last_drink`` as it was, and a
   new conversation starts without one;
3. it writes these two keys and nothing else: no other key at any scope (no copy of the
   drink, no history, no extra key of the conversation), no file, and the customer's other
   keys (``user:name``...) stay exactly as they are, not even rewritten with their own value.
   No file means none anywhere: not next to the session file, not in the temporary or the home
   folder, not at a path of your own such as ``/tmp/favourites.json``. ``temp:`` keys, which
   ADK never stores, are yours to use;
4. it returns exactly ``{"status": "saved", "favorite_drink": drink}``: the function_response
   the model reads, so that it can confirm what was saved.

The values stored and returned are the ``drink`` argument itself, exactly as the model passed
it, whatever it holds: an empty or blank drink, one of any length up to 100,000 characters,
one that reads as a number or as JSON, quotes, punctuation, markup (``&``, ``<``), line breaks,
tabs, invisible or unusual spaces, NUL and other control characters, any code point of any
plane (emoji, right-to-left marks, combining accents, private-use and unassigned ones)
included. (Only a lone surrogate such as ``"\\ud800"`` never comes: no model can send one,
and ADK fails to store the call that would carry it, before your tool runs. And one change is
ADK's, not yours: its SQLite store ends a text at a NUL when it merges a state into a stored
one, while the event keeps it whole; store the drink as it is all the same.) No stripping,
truncation, unquoting, escaping, filtering, parsing or validation, no change of case or of
Unicode form, no refusing: every call saves. The drink comes from the argument, never from the
customer's message (the model words it its own way).

Every call is one of many and behaves as the first: the grader calls the tool hundreds of
times in one process (how many, it draws anew each run), sometimes dozens of times in one
model response (parallel calls, which ADK runs together and whose state changes it applies in
the order of the calls). Keep nothing of your own between calls: no counter, no cache.
The keys are ``favorite_drink`` and ``last_drink``, each with the prefix (or none) that its
scope needs: your one decision is where each key lives. Lesson 1 showed the scopes state can
have.

The grader plays conversations through a real ``Runner`` on a SQLite file and compares
everything the file holds afterwards (every state key, every event, the tool's answers), and
any file the tool leaves or writes anywhere, with what the reference tool leaves, on fresh
customers and drinks of every shape and length every run.

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
  ### HINT: Keep `drink` as favorite_drink, seen by every later conversation of this customer
  ### HINT: and by no one else, and as last_drink, seen by this conversation only; store nothing
  ### HINT: else; return exactly {"status": "saved", "favorite_drink": drink}.
  ### BEGIN SOLUTION
  tool_context.state["user:favorite_drink"] = drink  # user: every session of this user
  tool_context.state["last_drink"] = drink  # no prefix: this session only
  return {"status": "saved", "favorite_drink": drink}
  ### END SOLUTION
