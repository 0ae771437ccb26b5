"""Treats a missing answer as consent (opt-out): a customer never asked is remembered."""

LOSES = ("never_asked_not_saved",)


async def remember_with_consent(callback_context) -> None:
  consent = callback_context.state.get("user:memory_consent", True)
  if consent:
    await callback_context.add_session_to_memory()
  else:
    for event in callback_context.session.events:
      await callback_context.delete_memory(memory_id=event.id)
