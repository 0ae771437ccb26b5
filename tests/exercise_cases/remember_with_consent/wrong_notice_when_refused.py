"""Tells a customer without consent that nothing is kept: a returned Content is an extra reply in the conversation.

From the red team (w07_notice_when_refused.py).
"""

LOSES = ("conversation_untouched",)

from google.genai import types
async def remember_with_consent(callback_context):
  consent = callback_context.state.get("user:memory_consent")
  if consent is True:
    await callback_context.add_session_to_memory()
    return None
  if consent is False:
    for event in callback_context.session.events:
      await callback_context.delete_memory(memory_id=event.id)
    return types.Content(role="model", parts=[types.Part(text="(not remembered)")])
  return None
