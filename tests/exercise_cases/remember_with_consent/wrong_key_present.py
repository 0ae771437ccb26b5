"""Treats any answer as consent (`in state`): a customer who refused is remembered too."""

LOSES = ("refusal_respected", "nothing_after_withdrawal")


async def remember_with_consent(callback_context) -> None:
  if "user:memory_consent" in callback_context.state:
    await callback_context.add_session_to_memory()
