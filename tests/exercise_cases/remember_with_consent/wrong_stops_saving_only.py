"""Stops saving after a withdrawal but never deletes what the conversation already saved."""

LOSES = ("forgotten_on_withdrawal",)


async def remember_with_consent(callback_context) -> None:
  if callback_context.state.get("user:memory_consent") is True:
    await callback_context.add_session_to_memory()
