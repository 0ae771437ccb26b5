"""Adds the last two events (message and reply) each turn: turns before the consent never reach memory."""

LOSES = ("saved_with_consent",)


async def remember_with_consent(callback_context) -> None:
  consent = callback_context.state.get("user:memory_consent")
  if consent is True:
    await callback_context.add_events_to_memory(events=callback_context.session.events[-2:])
  elif consent is False:
    for event in callback_context.session.events:
      await callback_context.delete_memory(memory_id=event.id)
