"""Tracks the ids it added per (user, session) without the app: the same customer id in the other app shares the record.

From the red team (w06_track_by_user_session.py).
"""

LOSES = ("forgotten_on_withdrawal",)

_ADDED: dict = {}
async def remember_with_consent(callback_context) -> None:
  s = callback_context.session
  key = (s.user_id, s.id)
  consent = callback_context.state.get("user:memory_consent")
  if consent is True:
    await callback_context.add_session_to_memory()
    _ADDED.setdefault(key, set()).update(e.id for e in s.events)
  elif consent is False:
    for memory_id in sorted(_ADDED.pop(key, set())):
      await callback_context.delete_memory(memory_id=memory_id)
