"""Reads the answer from this conversation's own events, not the state: a change made in another session is never seen.

From the red team (w14_consent_from_events.py).
"""

async def remember_with_consent(callback_context) -> None:
  consent = None
  for e in callback_context.session.events:
    delta = e.actions.state_delta if e.actions else {}
    if "user:memory_consent" in (delta or {}):
      consent = delta["user:memory_consent"]
  if consent is True:
    await callback_context.add_session_to_memory()
  elif consent is False:
    for event in callback_context.session.events:
      await callback_context.delete_memory(memory_id=event.id)
