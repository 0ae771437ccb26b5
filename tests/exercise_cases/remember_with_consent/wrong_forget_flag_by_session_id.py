"""Skips repeated deletions with a flag per session id (reset on consent): another customer's refusal there silences a withdrawal.

From the red team (w13_forget_flag_by_session_id.py).
"""

LOSES = ("forgotten_on_withdrawal",)

_FORGOTTEN: set = set()
async def remember_with_consent(callback_context) -> None:
  sid = callback_context.session.id
  consent = callback_context.state.get("user:memory_consent")
  if consent is True:
    _FORGOTTEN.discard(sid)
    await callback_context.add_session_to_memory()
  elif consent is False and sid not in _FORGOTTEN:
    for event in callback_context.session.events:
      await callback_context.delete_memory(memory_id=event.id)
    _FORGOTTEN.add(sid)
