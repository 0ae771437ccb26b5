"""Returns an empty Content as "no reply": ADK appends it to the conversation as an event on every turn.

From the red team (w04_empty_content.py).
"""

LOSES = ("conversation_untouched",)

from google.genai import types
async def remember_with_consent(callback_context):
  consent = callback_context.state.get("user:memory_consent")
  if consent is True:
    await callback_context.add_session_to_memory()
  elif consent is False:
    for event in callback_context.session.events:
      await callback_context.delete_memory(memory_id=event.id)
  return types.Content(role="model", parts=[])
