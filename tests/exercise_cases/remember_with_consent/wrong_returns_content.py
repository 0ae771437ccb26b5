"""Returns a confirmation Content: ADK adds it to the conversation as an extra reply on every turn.

The contract's callback returns None; what it returns becomes an event of the session (and,
with consent, a memory), so every conversation differs from the customer's.
"""

from google.genai import types

LOSES = ("saved_with_consent",)


async def remember_with_consent(callback_context):
  consent = callback_context.state.get("user:memory_consent")
  if consent is True:
    await callback_context.add_session_to_memory()
    return types.Content(role="model", parts=[types.Part(text="(saved to memory)")])
  if consent is False:
    for event in callback_context.session.events:
      await callback_context.delete_memory(memory_id=event.id)
  return None
