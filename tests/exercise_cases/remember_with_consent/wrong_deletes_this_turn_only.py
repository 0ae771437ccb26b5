"""On withdrawal deletes only this turn's events (same invocation id): what was saved before stays."""

LOSES = ("forgotten_on_withdrawal",)


async def remember_with_consent(callback_context) -> None:
  consent = callback_context.state.get("user:memory_consent")
  if consent is True:
    await callback_context.add_session_to_memory()
  elif consent is False:
    for event in callback_context.session.events:
      if event.invocation_id == callback_context.invocation_id:
        await callback_context.delete_memory(memory_id=event.id)
