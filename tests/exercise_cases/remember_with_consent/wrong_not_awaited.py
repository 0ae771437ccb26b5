"""Calls the context's memory methods without await: the coroutines never run, nothing is saved."""

LOSES = ("saved_with_consent",)


async def remember_with_consent(callback_context) -> None:
  consent = callback_context.state.get("user:memory_consent")
  if consent is True:
    callback_context.add_session_to_memory()
  elif consent is False:
    for event in callback_context.session.events:
      callback_context.delete_memory(memory_id=event.id)
