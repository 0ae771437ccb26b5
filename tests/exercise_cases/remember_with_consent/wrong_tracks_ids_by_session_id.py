"""Tracks the ids it added per session id alone: a session id shared by two customers mixes their records up.

From the red team (w05_track_by_session_id.py).
"""

LOSES = ("forgotten_on_withdrawal",)

_ADDED: dict = {}
async def remember_with_consent(callback_context) -> None:
  s = callback_context.session
  consent = callback_context.state.get("user:memory_consent")
  if consent is True:
    await callback_context.add_session_to_memory()
    _ADDED.setdefault(s.id, set()).update(e.id for e in s.events)
  elif consent is False:
    for memory_id in sorted(_ADDED.pop(s.id, set())):
      await callback_context.delete_memory(memory_id=memory_id)
