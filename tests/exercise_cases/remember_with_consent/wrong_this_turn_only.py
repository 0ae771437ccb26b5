"""Adds only this turn's events (same invocation id): what was said before the consent is lost."""

LOSES = ("saved_with_consent",)


async def remember_with_consent(callback_context) -> None:
  session = callback_context.session
  consent = session.state.get("user:memory_consent")
  if consent is True:
    await callback_context.add_events_to_memory(
        events=[e for e in session.events if e.invocation_id == callback_context.invocation_id])
  elif consent is False:
    for event in session.events:
      await callback_context.delete_memory(memory_id=event.id)
