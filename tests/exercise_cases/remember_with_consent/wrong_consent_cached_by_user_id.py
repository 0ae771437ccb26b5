"""Caches each customer's answer by user id (not app), then follows only this turn's changes: apps mix up.

From the red team (w09_cache_consent_by_user.py).
"""

_CONSENT: dict = {}
async def remember_with_consent(callback_context) -> None:
  s = callback_context.session
  if s.user_id not in _CONSENT:
    _CONSENT[s.user_id] = callback_context.state.get("user:memory_consent")
  for e in s.events:
    if e.invocation_id == callback_context.invocation_id and \
        "user:memory_consent" in (e.actions.state_delta or {}):
      _CONSENT[s.user_id] = e.actions.state_delta["user:memory_consent"]
  consent = _CONSENT[s.user_id]
  if consent is True:
    await callback_context.add_session_to_memory()
  elif consent is False:
    for event in s.events:
      await callback_context.delete_memory(memory_id=event.id)
