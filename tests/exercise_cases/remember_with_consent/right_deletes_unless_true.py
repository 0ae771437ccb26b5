"""Deletes whenever consent is not True: for a customer never asked, nothing of theirs is in memory anyway."""


async def remember_with_consent(callback_context) -> None:
  if callback_context.state.get("user:memory_consent") is True:
    await callback_context.add_session_to_memory()
    return
  for event in callback_context.session.events:
    await callback_context.delete_memory(memory_id=event.id)
