"""Adds every event but the newest one (the reply it is still "writing"): each turn's reply is a turn late."""

LOSES = ("saved_with_consent",)


async def remember_with_consent(callback_context) -> None:
  consent = callback_context.state.get("user:memory_consent")
  events = callback_context.session.events
  if consent is True:
    await callback_context.add_events_to_memory(events=events[:-1])
  elif consent is False:
    for event in events:
      await callback_context.delete_memory(memory_id=event.id)
