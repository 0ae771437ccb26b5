"""Forgets each conversation only once (a module-level set): a second withdrawal in the same session deletes nothing.

From the red team (w02_forget_once_module.py).
"""

LOSES = ("forgotten_on_withdrawal",)

_FORGOTTEN: set = set()
async def remember_with_consent(callback_context) -> None:
  s = callback_context.session
  key = (s.app_name, s.user_id, s.id)
  consent = callback_context.state.get("user:memory_consent")
  if consent is True:
    await callback_context.add_session_to_memory()
  elif consent is False and key not in _FORGOTTEN:
    for event in s.events:
      await callback_context.delete_memory(memory_id=event.id)
    _FORGOTTEN.add(key)
