"""Deletes on withdrawal but never saves anything, even with consent."""

LOSES = ("saved_with_consent", "forgotten_on_withdrawal")


async def remember_with_consent(callback_context) -> None:
  if callback_context.state.get("user:memory_consent") is False:
    for event in callback_context.session.events:
      await callback_context.delete_memory(memory_id=event.id)
