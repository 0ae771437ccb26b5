"""Saves only the events that have text: the tool calls and tool results never reach memory."""

LOSES = ("saved_with_consent",)


async def remember_with_consent(callback_context) -> None:
  consent = callback_context.state.get("user:memory_consent")
  events = callback_context.session.events
  if consent is True:
    said = [e for e in events if e.content and any(p.text for p in e.content.parts or [])]
    await callback_context.add_events_to_memory(events=said)
  elif consent is False:
    for event in events:
      await callback_context.delete_memory(memory_id=event.id)
