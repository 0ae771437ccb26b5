"""Adds only the events it has not added yet, counted per session id: customers share ids like "default".

A module-level count keyed by the session id alone mixes up every customer (and app) whose
session has the same id: their first events are taken as saved already.
"""

LOSES = ("saved_with_consent",)

SAVED: dict[str, int] = {}


async def remember_with_consent(callback_context) -> None:
  session = callback_context.session
  consent = callback_context.state.get("user:memory_consent")
  if consent is True:
    start = SAVED.get(session.id, 0)
    await callback_context.add_events_to_memory(events=session.events[start:])
    SAVED[session.id] = len(session.events)
  elif consent is False:
    for event in session.events:
      await callback_context.delete_memory(memory_id=event.id)
    SAVED.pop(session.id, None)
