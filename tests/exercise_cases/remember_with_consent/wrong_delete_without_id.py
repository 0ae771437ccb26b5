"""Calls delete_memory() with no id, hoping it clears everything: it deletes nothing."""

LOSES = ("forgotten_on_withdrawal",)


async def remember_with_consent(callback_context) -> None:
  consent = callback_context.state.get("user:memory_consent")
  if consent is True:
    await callback_context.add_session_to_memory()
  elif consent is False:
    await callback_context.delete_memory()
