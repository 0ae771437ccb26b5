"""One customer message through a Runner, for notebooks that use the concierge without teaching
the Runner loop itself (lessons 1 to 3 show it)."""

from __future__ import annotations

from google.adk.runners import Runner
from google.genai import types


async def say(runner: Runner, user_id: str, session_id: str, text: str) -> str:
  """Send ``text`` as the user's message; return the agent's final reply ("" if none)."""
  message = types.Content(role="user", parts=[types.Part(text=text)])
  reply = ""
  async for event in runner.run_async(user_id=user_id, session_id=session_id,
                                      new_message=message):
    if event.is_final_response() and event.content and event.content.parts:
      reply = "".join(part.text or "" for part in event.content.parts)
  return reply
