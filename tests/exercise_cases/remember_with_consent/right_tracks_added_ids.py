"""Tracks in module-level sets what it added and what it deleted, adding and deleting exactly those."""

ADDED: set[str] = set()
FORGOTTEN: set[str] = set()


async def remember_with_consent(callback_context) -> None:
  events = callback_context.session.events
  answer = callback_context.state.get("user:memory_consent")
  if answer is None:
    return
  if answer:
    kept = [event for event in events if event.id not in FORGOTTEN]
    await callback_context.add_events_to_memory(events=kept)
    ADDED.update(event.id for event in kept if event.content and event.content.parts)
  else:
    for event in events:
      if event.id in ADDED:
        await callback_context.delete_memory(memory_id=event.id)
        FORGOTTEN.add(event.id)
        ADDED.discard(event.id)
