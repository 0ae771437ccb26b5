"""Keeps its bookkeeping in temp: state: never stored, but each write still appends an (empty) event to the conversation.

ADK drops temp: keys from what it stores, not the event their change makes.
"""

LOSES = ("conversation_untouched",)


async def remember_with_consent(callback_context) -> None:
  consent = callback_context.state.get("user:memory_consent")
  callback_context.state["temp:memory_action"] = {True: "save", False: "forget"}.get(consent)
  if consent is True:
    await callback_context.add_session_to_memory()
  elif consent is False:
    for event in callback_context.session.events:
      await callback_context.delete_memory(memory_id=event.id)
