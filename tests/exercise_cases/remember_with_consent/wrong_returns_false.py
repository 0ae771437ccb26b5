"""Returns False instead of None: ADK ignores it, but the contract's callback returns None.

From the red team (w03_returns_false.py).
"""

LOSES = ("conversation_untouched",)

async def remember_with_consent(callback_context):
  consent = callback_context.state.get("user:memory_consent")
  if consent is True:
    await callback_context.add_session_to_memory()
    return False  # "False: no reply to add" (any falsy value is ignored by ADK)
  if consent is False:
    for event in callback_context.session.events:
      await callback_context.delete_memory(memory_id=event.id)
  return False
