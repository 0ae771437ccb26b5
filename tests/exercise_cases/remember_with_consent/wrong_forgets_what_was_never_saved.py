"""Counts as forgotten everything said while consent is False: after a new consent it is never added.

Only what memory held is deleted (and stays out); what the customer said while consent was
withdrawn was never in memory, so a new consent adds it like the rest of the conversation.
"""

LOSES = ("saved_with_consent",)

FORGOTTEN: set[str] = set()


async def _forget(callback_context, events) -> None:
  for event in events:
    await callback_context.delete_memory(memory_id=event.id)
    FORGOTTEN.add(event.id)


async def remember_with_consent(callback_context) -> None:
  events = callback_context.session.events
  answer = callback_context.state.get("user:memory_consent")
  if answer is None:
    return
  if answer:
    kept = [event for event in events if event.id not in FORGOTTEN]
    await callback_context.add_events_to_memory(events=kept)
  else:
    await _forget(callback_context, events)
